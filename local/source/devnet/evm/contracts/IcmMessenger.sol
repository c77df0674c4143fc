// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// The message format and events of Avalanche's TeleporterMessenger (ICM), as
// its published interface defines them, so that an indexer of the real
// messenger reads this one alike.

struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

interface IERC20Minimal {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title IcmMessenger: avaedge's own sending side of ICM. It numbers, identifies and
/// announces messages as the TeleporterMessenger does (the same message ids, events and
/// Warp payload), takes their fees and lets a sender add to them. It does not receive:
/// delivery needs a second live chain and a relayer, which the local world does not run.
/// It takes no constructor arguments, so one keyless transaction deploys it at the same
/// address on every chain.
contract IcmMessenger {
    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        TeleporterMessage message,
        TeleporterFeeInfo feeInfo
    );
    event AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo);

    /// The Warp precompile of Avalanche EVM chains.
    address public constant WARP_MESSENGER = 0x0200000000000000000000000000000000000005;

    /// The chain's blockchain id, from the Warp precompile; on a plain EVM, which has
    /// none, the one its first setBlockchainID call gave.
    bytes32 public blockchainID;
    /// The last message nonce used.
    uint256 public messageNonce;
    mapping(bytes32 => TeleporterFeeInfo) private _fees;
    mapping(bytes32 => bool) private _sent;

    /// Sets blockchainID from the Warp precompile once, announcing it.
    function initializeBlockchainID() public returns (bytes32) {
        if (blockchainID != bytes32(0)) {
            return blockchainID;
        }
        bytes32 id = _warpBlockchainID();
        require(id != bytes32(0), "IcmMessenger: no Warp precompile; setBlockchainID first");
        blockchainID = id;
        emit BlockchainIDInitialized(id);
        return id;
    }

    /// Sets blockchainID on a chain without the Warp precompile, once.
    function setBlockchainID(bytes32 id) external {
        require(blockchainID == bytes32(0) && id != bytes32(0), "IcmMessenger: blockchain id already set");
        require(_warpBlockchainID() == bytes32(0), "IcmMessenger: the Warp precompile gives the blockchain id");
        blockchainID = id;
        emit BlockchainIDInitialized(id);
    }

    function _warpBlockchainID() private view returns (bytes32) {
        (bool ok, bytes memory ret) = WARP_MESSENGER.staticcall(abi.encodeWithSignature("getBlockchainID()"));
        if (ok && ret.length == 32) {
            return abi.decode(ret, (bytes32));
        }
        return bytes32(0);
    }

    /// The id of message nonce from sourceID to destinationID.
    function calculateMessageID(bytes32 sourceID, bytes32 destinationID, uint256 nonce) public view returns (bytes32) {
        return keccak256(abi.encode(address(this), sourceID, destinationID, nonce));
    }

    function sendCrossChainMessage(TeleporterMessageInput calldata input) external returns (bytes32 messageID) {
        bytes32 sourceID = initializeBlockchainID();
        require(input.destinationBlockchainID != sourceID, "IcmMessenger: cannot send to the same chain");
        uint256 nonce = ++messageNonce;
        messageID = calculateMessageID(sourceID, input.destinationBlockchainID, nonce);
        if (input.feeInfo.amount > 0) {
            require(input.feeInfo.feeTokenAddress != address(0), "IcmMessenger: zero fee token");
            _take(input.feeInfo.feeTokenAddress, input.feeInfo.amount);
        }
        _fees[messageID] = input.feeInfo;
        _sent[messageID] = true;
        TeleporterMessage memory m = TeleporterMessage({
            messageNonce: nonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: input.destinationBlockchainID,
            destinationAddress: input.destinationAddress,
            requiredGasLimit: input.requiredGasLimit,
            allowedRelayerAddresses: input.allowedRelayerAddresses,
            receipts: new TeleporterMessageReceipt[](0),
            message: input.message
        });
        // The Warp message validators sign for relayers; a plain EVM has no
        // precompile, and the call then does nothing.
        (bool ok,) = WARP_MESSENGER.call(abi.encodeWithSignature("sendWarpMessage(bytes)", abi.encode(m)));
        ok;
        emit SendCrossChainMessage(messageID, input.destinationBlockchainID, m, input.feeInfo);
    }

    /// Adds amount of the message's fee token to its fee.
    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 amount) external {
        TeleporterFeeInfo storage f = _fees[messageID];
        require(_sent[messageID], "IcmMessenger: unknown message");
        require(amount > 0 && feeTokenAddress != address(0), "IcmMessenger: no fee");
        require(f.amount == 0 || f.feeTokenAddress == feeTokenAddress, "IcmMessenger: another fee token");
        _take(feeTokenAddress, amount);
        f.feeTokenAddress = feeTokenAddress;
        f.amount += amount;
        emit AddFeeAmount(messageID, f);
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo storage f = _fees[messageID];
        return (f.feeTokenAddress, f.amount);
    }

    function _take(address token, uint256 amount) private {
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSelector(IERC20Minimal.transferFrom.selector, msg.sender, address(this), amount));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "IcmMessenger: fee transfer failed");
    }
}
