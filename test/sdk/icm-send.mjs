// Deploys an ICM messenger on an EVM chain with its keyless transaction
// (unless code is already at its address: the deployer is funded with
// exactly the transaction's cost from ewoq, then the raw transaction is
// sent; the chain must accept transactions without a chain id), then sends
// one message from ewoq through it, offering a fee of an ERC-20 ewoq holds,
// and prints what it did as JSON.
//
//   node icm-send.mjs RPC DEPLOYMENT DESTINATION_BLOCKCHAIN_ID_HEX RECIPIENT FEE_TOKEN FEE_AMOUNT SELF_BLOCKCHAIN_ID_HEX
//
// DEPLOYMENT is a JSON file {deployer, address, cost, rawTransaction}: the
// TeleporterMessenger's official deployment (test/e2e writes it from its
// testdata) or avaedge's messenger's
// (local/source/devnet/evm/artifacts/IcmMessenger.deployment.json).
// SELF_BLOCKCHAIN_ID_HEX is the chain's blockchain id, set on avaedge's
// messenger only where the chain has no Warp precompile to give it. Exits
// non-zero on any failure.
import { readFileSync } from "node:fs";
import { Contract, Interface, JsonRpcProvider, Wallet, id } from "ethers";

const [rpc, deploymentFile, destination, recipient, feeToken, feeAmount, self] = process.argv.slice(2);
const ewoqKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
const deployment = JSON.parse(readFileSync(deploymentFile, "utf8"));
// The messengers' functions this script calls (both messengers have them
// but setBlockchainID, avaedge's alone), and the topic of their
// SendCrossChainMessage(messageID indexed, destinationBlockchainID indexed, message, feeInfo).
const messengerABI = [
  "function sendCrossChainMessage((bytes32 destinationBlockchainID, address destinationAddress, (address feeTokenAddress, uint256 amount) feeInfo, uint256 requiredGasLimit, address[] allowedRelayerAddresses, bytes message) messageInput) returns (bytes32)",
  "function blockchainID() view returns (bytes32)",
  "function setBlockchainID(bytes32 id)",
];
const sendTopic = id("SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes),(address,uint256))");
const warp = "0x0200000000000000000000000000000000000005";

try {
  const provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(ewoqKey, provider);
  const wait = async (name, sent) => {
    const tx = await sent;
    const r = await tx.wait(1, 60_000);
    if (r.status !== 1) throw new Error(`${name} (${tx.hash}) reverted`);
    return r;
  };
  const out = { messenger: deployment.address, from: wallet.address };
  if ((await provider.getCode(deployment.address)) === "0x") {
    await wait("funding the deployer", wallet.sendTransaction({ to: deployment.deployer, value: BigInt(deployment.cost) }));
    const r = await wait("the keyless deployment", provider.broadcastTransaction(deployment.rawTransaction));
    out.deployTx = r.hash;
    out.deployGasUsed = r.gasUsed.toString();
  }
  const m = new Contract(deployment.address, messengerABI, wallet);
  const fromWarp = await provider.call({ to: warp, data: new Interface(["function getBlockchainID() view returns (bytes32)"]).encodeFunctionData("getBlockchainID") });
  out.warpPrecompile = fromWarp.length === 66;
  if (!out.warpPrecompile && (await m.blockchainID()) === "0x" + "00".repeat(32)) {
    await wait("setBlockchainID", m.setBlockchainID(self));
  }
  const erc20 = new Contract(feeToken, ["function approve(address,uint256) returns (bool)"], wallet);
  await wait("approve", erc20.approve(deployment.address, BigInt(feeAmount)));
  const input = {
    destinationBlockchainID: destination,
    destinationAddress: recipient,
    feeInfo: { feeTokenAddress: feeToken, amount: BigInt(feeAmount) },
    requiredGasLimit: 200000n,
    allowedRelayerAddresses: [],
    message: "0x" + Buffer.from("hello from the C-Chain").toString("hex"),
  };
  const r = await wait("sendCrossChainMessage", m.sendCrossChainMessage(input));
  const ev = r.logs.find((l) => l.address.toLowerCase() === deployment.address.toLowerCase() && l.topics[0] === sendTopic);
  if (!ev) throw new Error("no SendCrossChainMessage event");
  out.messageId = ev.topics[1];
  out.sourceBlockchainId = await m.blockchainID();
  out.txHash = r.hash;
  out.block = r.blockNumber;
  out.gasUsed = r.gasUsed.toString();
  console.log(JSON.stringify(out));
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
}
