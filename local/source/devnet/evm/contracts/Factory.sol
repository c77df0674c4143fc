// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Child: the small contract Factory deploys; it keeps the value it was funded with.
contract Child {
    address public immutable creator;
    uint256 public immutable tag;

    constructor(uint256 t) payable {
        creator = msg.sender;
        tag = t;
    }

    function withdraw(address payable to) external {
        require(msg.sender == creator, "Child: not creator");
        to.transfer(address(this).balance);
    }
}

/// @title Factory deploys Child contracts with CREATE and CREATE2, forwarding any value sent.
contract Factory {
    event Deployed(address indexed child, bool create2, bytes32 salt);

    function deploy(uint256 tag) external payable returns (address child) {
        child = address(new Child{value: msg.value}(tag));
        emit Deployed(child, false, bytes32(0));
    }

    function deploy2(uint256 tag, bytes32 salt) external payable returns (address child) {
        child = address(new Child{value: msg.value, salt: salt}(tag));
        emit Deployed(child, true, salt);
    }

    function predict(uint256 tag, bytes32 salt) external view returns (address) {
        bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(abi.encodePacked(type(Child).creationCode, abi.encode(tag)))));
        return address(uint160(uint256(h)));
    }
}
