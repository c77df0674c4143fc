// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./Encoding.sol";

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data) external returns (bytes4);
    function onERC1155BatchReceived(address operator, address from, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external returns (bytes4);
}

/// @title AvaMulti: the local world's ERC-1155; uri(id) is a base64 JSON data: URI.
contract AvaMulti {
    address public immutable owner;
    mapping(uint256 => mapping(address => uint256)) public balanceOf;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);

    constructor() {
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0xd9b67a26 || id == 0x0e89341c;
    }

    function uri(uint256 id) external pure returns (string memory) {
        string memory n = Encoding.toString(id);
        return Encoding.jsonDataURI(abi.encodePacked(
            '{"name":"Avaedge Item #', n,
            '","description":"Item ', n, ' of the avaedge local world.","image":"ipfs://bafkreiavaedgedevitem/', n,
            '.svg","decimals":0,"properties":{"kind":"item","id":', n, '}}'));
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids) external view returns (uint256[] memory out) {
        require(accounts.length == ids.length, "AvaMulti: length mismatch");
        out = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) out[i] = balanceOf[ids[i]][accounts[i]];
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function mint(address to, uint256 id, uint256 value) external {
        require(msg.sender == owner, "AvaMulti: not owner");
        balanceOf[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
        _checkSingle(address(0), to, id, value, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        require(msg.sender == owner, "AvaMulti: not owner");
        require(ids.length == values.length, "AvaMulti: length mismatch");
        for (uint256 i = 0; i < ids.length; i++) balanceOf[ids[i]][to] += values[i];
        emit TransferBatch(msg.sender, address(0), to, ids, values);
        _checkBatch(address(0), to, ids, values, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        require(to != address(0), "AvaMulti: transfer to zero");
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "AvaMulti: not allowed");
        require(balanceOf[id][from] >= value, "AvaMulti: balance");
        balanceOf[id][from] -= value;
        balanceOf[id][to] += value;
        emit TransferSingle(msg.sender, from, to, id, value);
        _checkSingle(from, to, id, value, data);
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external {
        require(to != address(0), "AvaMulti: transfer to zero");
        require(ids.length == values.length, "AvaMulti: length mismatch");
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "AvaMulti: not allowed");
        for (uint256 i = 0; i < ids.length; i++) {
            require(balanceOf[ids[i]][from] >= values[i], "AvaMulti: balance");
            balanceOf[ids[i]][from] -= values[i];
            balanceOf[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        _checkBatch(from, to, ids, values, data);
    }

    function _checkSingle(address from, address to, uint256 id, uint256 value, bytes memory data) internal {
        if (to.code.length != 0) {
            require(IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data) == IERC1155Receiver.onERC1155Received.selector, "AvaMulti: unsafe recipient");
        }
    }

    function _checkBatch(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes memory data) internal {
        if (to.code.length != 0) {
            require(IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data) == IERC1155Receiver.onERC1155BatchReceived.selector, "AvaMulti: unsafe recipient");
        }
    }
}
