// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Encoding: decimal and base64 helpers for on-chain JSON metadata.
library Encoding {
    bytes internal constant TABLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// @notice toString returns the decimal form of v.
    function toString(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        uint256 len;
        for (uint256 t = v; t != 0; t /= 10) len++;
        bytes memory out = new bytes(len);
        while (v != 0) {
            len--;
            out[len] = bytes1(uint8(48 + (v % 10)));
            v /= 10;
        }
        return string(out);
    }

    /// @notice base64 returns the standard padded base64 form of data.
    function base64(bytes memory data) internal pure returns (string memory) {
        if (data.length == 0) return "";
        bytes memory out = new bytes(4 * ((data.length + 2) / 3));
        uint256 j;
        for (uint256 i = 0; i < data.length; i += 3) {
            uint256 a = uint8(data[i]);
            uint256 b = i + 1 < data.length ? uint8(data[i + 1]) : 0;
            uint256 c = i + 2 < data.length ? uint8(data[i + 2]) : 0;
            uint256 n = (a << 16) | (b << 8) | c;
            out[j++] = TABLE[(n >> 18) & 63];
            out[j++] = TABLE[(n >> 12) & 63];
            out[j++] = i + 1 < data.length ? TABLE[(n >> 6) & 63] : bytes1("=");
            out[j++] = i + 2 < data.length ? TABLE[n & 63] : bytes1("=");
        }
        return string(out);
    }

    /// @notice jsonDataURI wraps a JSON document in a base64 data: URI.
    function jsonDataURI(bytes memory json) internal pure returns (string memory) {
        return string.concat("data:application/json;base64,", base64(json));
    }
}
