// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./Encoding.sol";

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data) external returns (bytes4);
}

/// @title AvaNFT: the local world's ERC-721; tokenURI is a base64 JSON data: URI.
contract AvaNFT {
    string public constant name = "Avaedge Dev NFT";
    string public constant symbol = "ADN";
    address public immutable owner;
    uint256 public nextId = 1;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    constructor() {
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0x80ac58cd || id == 0x5b5e139f;
    }

    function mint(address to) external returns (uint256 id) {
        require(msg.sender == owner, "AvaNFT: not owner");
        require(to != address(0), "AvaNFT: mint to zero");
        id = nextId++;
        ownerOf[id] = to;
        balanceOf[to]++;
        emit Transfer(address(0), to, id);
    }

    function tokenURI(uint256 id) external view returns (string memory) {
        require(ownerOf[id] != address(0), "AvaNFT: no such token");
        string memory n = Encoding.toString(id);
        return Encoding.jsonDataURI(abi.encodePacked(
            '{"name":"Avaedge Dev NFT #', n,
            '","description":"NFT ', n, ' of the avaedge local world.","image":"ipfs://bafkreiavaedgedevnft/', n,
            '.svg","external_url":"https://github.com/avaedge/avaedge","attributes":[{"trait_type":"Number","value":', n, '}]}'));
    }

    function approve(address to, uint256 id) external {
        address o = ownerOf[id];
        require(msg.sender == o || isApprovedForAll[o][msg.sender], "AvaNFT: not allowed");
        getApproved[id] = to;
        emit Approval(o, to, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 id) public {
        require(from == ownerOf[id], "AvaNFT: wrong from");
        require(to != address(0), "AvaNFT: transfer to zero");
        require(msg.sender == from || isApprovedForAll[from][msg.sender] || msg.sender == getApproved[id], "AvaNFT: not allowed");
        balanceOf[from]--;
        balanceOf[to]++;
        ownerOf[id] = to;
        delete getApproved[id];
        emit Transfer(from, to, id);
    }

    function safeTransferFrom(address from, address to, uint256 id) external {
        safeTransferFrom(from, to, id, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, bytes memory data) public {
        transferFrom(from, to, id);
        if (to.code.length != 0) {
            require(IERC721Receiver(to).onERC721Received(msg.sender, from, id, data) == IERC721Receiver.onERC721Received.selector, "AvaNFT: unsafe recipient");
        }
    }
}
