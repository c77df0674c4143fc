// Drives every catalogued Data and Metrics API route of avaedge through the
// official AvaCloud SDK (@avalabs/avacloud-sdk 0.13.0). The SDK validates each
// answer with strict zod schemas: a null optional, a missing required field,
// a number sent as a string or an unknown enum value fails the call.
//
//   node conformance.mjs http://127.0.0.1:8080 [network]
//
// With AVAEDGE_SDK_API_KEY set the SDK is configured with that apiKey, as an
// app with a key would be (it then sends x-glacier-api-key on every call).
//
// Exits non-zero when any call fails. Identifiers (node ids, addresses,
// contracts) are discovered from the answers themselves.
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const network = process.argv[3] ?? "fuji";
const apiKey = process.env.AVAEDGE_SDK_API_KEY || undefined;
const sdk = new AvaCloudSDK({ serverURL: base, network, chainId: "43112", apiKey });
// Each operation carries its own server URL in the SDK; point every call at
// avaedge and do not retry (a retry would hide a failure).
const O = { serverURL: base, retries: { strategy: "none" } };
let failed = 0;
let passed = 0;

async function check(name, fn) {
  try {
    const res = await fn();
    passed++;
    console.log(`ok   ${name}`);
    return res;
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${String(e?.message ?? e).slice(0, 600)}`);
    return undefined;
  }
}

// Pages are async iterables; the first page is the result.
async function first(p) {
  const r = await p;
  if (r && typeof r[Symbol.asyncIterator] === "function") {
    for await (const page of r) return page.result ?? page;
  }
  return r?.result ?? r;
}

const pn = sdk.data.primaryNetwork;
const validators = await check("listValidators", () => first(pn.listValidators({ network, pageSize: 10 }, O)));
const nodeId = validators?.validators?.[0]?.nodeId;
await check("listValidators sortBy+status", () => first(pn.listValidators({ network, validationStatus: "active", sortBy: "delegationFee", sortOrder: "asc" }, O)));
await check("getSingleValidatorDetails", () => first(pn.getValidatorDetails({ network, nodeId }, O)));
const delegators = await check("listDelegators", () => first(pn.listDelegators({ network }, O)));
await check("listSubnets", () => first(pn.listSubnets({ network, pageSize: 100 }, O)));
const utxosP = await check("getUtxosByAddresses p-chain", async () => {
  // Discover an address from the pending rewards or delegators.
  const addr = delegators?.delegators?.[0]?.rewardAddresses?.[0];
  return first(pn.utxos.listByAddresses({ network, blockchainId: "p-chain", addresses: addr }, O));
});
const pAddr = utxosP?.utxos?.[0]?.addresses?.[0] ?? delegators?.delegators?.[0]?.rewardAddresses?.[0];
const xAddr = pAddr ? pAddr.replace(/^P-/, "X-") : undefined;
await check("getUtxosByAddresses x-chain", () => first(pn.utxos.listByAddresses({ network, blockchainId: "x-chain", addresses: xAddr, includeSpent: true, sortBy: "amount" }, O)));
await check("listPendingPrimaryNetworkRewards", () => first(pn.rewards.listPendingRewards({ network, nodeIds: nodeId }, O)));
await check("getVertexByHeight", () => first(pn.vertices.listByHeight({ network, blockchainId: "x-chain", vertexHeight: 1 }, O)));
await check("listPrimaryNetworkBlocksByNodeId", () => first(pn.blocks.listByNodeId({ network, blockchainId: "p-chain", nodeId }, O)));
await check("getChainIdsForAddresses", () => pn.getChainIdsForAddresses({ network, addresses: pAddr ?? "" }, O));
await check("listLatestPrimaryNetworkBlocks", () => first(pn.blocks.listLatest({ network, blockchainId: "p-chain" }, O)));
// The latest transactions of each chain, and one of each type among them
// by hash (a list costs 100 CU: test/e2e's TestDevnetHistory reads every
// transaction).
for (const blockchainId of ["p-chain", "x-chain"]) {
  const txs = await check(`listLatestPrimaryNetworkTransactions ${blockchainId}`, () => first(pn.transactions.listLatest({ network, blockchainId, pageSize: 100 }, O)));
  const byType = new Map();
  for (const tx of txs?.transactions ?? []) if (!byType.has(tx.txType)) byType.set(tx.txType, tx.txHash);
  for (const [type, txHash] of byType) {
    await check(`getTxByHash ${blockchainId} ${type}`, () => pn.transactions.get({ network, blockchainId, txHash }, O));
  }
}

const evm = sdk.data.evm;
const ewoq = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC";
await check("supportedChains", () => evm.chains.list({}, O));
await check("getChainInfo", () => evm.chains.get({ chainId: "43112" }, O));
await check("getLatestBlocks", () => first(evm.blocks.listLatest({ chainId: "43112" }, O)));
await check("getNativeBalance", () => evm.address.balances.getNative({ chainId: "43112", address: ewoq }, O));
const b721 = await check("listErc721Balances", () => first(evm.address.balances.listErc721({ chainId: "43112", address: ewoq }, O)));
await check("listErc1155Balances", () => first(evm.address.balances.listErc1155({ chainId: "43112", address: ewoq }, O)));
const t1155 = await check("listErc1155Transactions", () => first(evm.address.transactions.listErc1155({ chainId: "43112", address: ewoq }, O)));
const nft = b721?.erc721TokenBalances?.[0];
if (nft) {
  await check("listTransfers", () => first(evm.contracts.listTransfers({ chainId: "43112", address: nft.address }, O)));
  await check("getDeploymentTransaction", () => evm.contracts.getDeploymentTransaction({ chainId: "43112", address: nft.address }, O));
  await check("getTokenDetails", () => sdk.data.nfts.get({ chainId: "43112", address: nft.address, tokenId: nft.tokenId }, O));
} else {
  failed++;
  console.log("FAIL no ERC-721 balance to drive listTransfers, getDeploymentTransaction, getTokenDetails");
}
void t1155;

const m = sdk.metrics.chains;
await check("listChains", () => first(m.list({}, O)));
await check("getChain", () => m.get({ chainId: "43112" }, O));
for (const metric of ["txCount", "activeAddresses", "gasUsed", "cumulativeTxCount", "avgTps", "maxGasPrice", "feesPaid"]) {
  await check(`getEvmChainMetrics ${metric}`, () => first(m.getMetrics({ chainId: "43112", metric, timeInterval: "day" }, O)));
}

await check("getEvmChainRollingWindowMetrics", () => m.getRollingWindowMetrics({ chainId: "43112", metric: "txCount" }, O));
await check("getEvmChainRollingWindowMetrics feesPaid", () => m.getRollingWindowMetrics({ chainId: "total", metric: "feesPaid" }, O));
await check("getTeleporterMetricsByChain", () => m.getTeleporterMetrics({ chainId: "43112", metric: "teleporterTotalTxnCount" }, O));
await check("getAddressesByBtcbBridged", () => first(m.listBTCbBridgersAboveThreshold({ threshold: "1" }, O)));
if (nft) {
  await check("getNftHoldersByContractAddress", () => first(m.listNftHolders({ chainId: "43112", address: nft.address }, O)));
}
const e20 = await check("listErc20Balances", () => first(evm.address.balances.listErc20({ chainId: "43112", address: ewoq }, O)));
const token = e20?.erc20TokenBalances?.[0]?.address;
if (token) {
  await check("getAddressesByBalanceOverTime", () => first(m.listTokenHoldersAboveThreshold({ chainId: "43112", address: token, threshold: "1" }, O)));
} else {
  failed++;
  console.log("FAIL no ERC-20 balance to drive getAddressesByBalanceOverTime");
}

// ICM: the dev chain's seeded message, through the ICM routes and their
// legacy Teleporter twins.
const icmList = await check("listIcmMessages", () => first(sdk.data.icm.list({ network }, O)));
const icmMsg = icmList?.messages?.[0];
if (icmMsg) {
  await check("getIcmMessage", () => sdk.data.icm.get({ messageId: icmMsg.messageId }, O));
  await check("listIcmMessagesByAddress", () => first(sdk.data.icm.listByAddress({ address: icmMsg.from, network }, O)));
  const tp = sdk.data.teleporter;
  await check("getTeleporterMessage", () => tp.getTeleporterMessage({ messageId: icmMsg.messageId }, O));
  await check("listTeleporterMessages", () => first(tp.listTeleporterMessages({ network }, O)));
  await check("listTeleporterMessagesByAddress", () => first(tp.listTeleporterMessagesByAddress({ address: icmMsg.to, network }, O)));
} else {
  failed++;
  console.log("FAIL no ICM message to drive getIcmMessage and the Teleporter routes");
}

const sig = sdk.data.signatureAggregator;
const subnets = await first(pn.listSubnets({ network }, O)).catch(() => undefined);
const l1 = subnets?.subnets?.find((s) => s.isL1);
// Staking and the L1 validators' fees.
await check("getStakingMetrics", () => first(sdk.metrics.networks.getStakingMetrics({ network, metric: "validatorWeight", subnetId: "11111111111111111111111111111111LpoYY" }, O)));
await check("getStakingMetrics delegators", () => first(sdk.metrics.networks.getStakingMetrics({ network, metric: "delegatorCount", subnetId: "11111111111111111111111111111111LpoYY" }, O)));
await check("getValidatorsByDateRange", () => first(sdk.metrics.subnets.getValidators({ subnetId: "11111111111111111111111111111111LpoYY", network }, O)));
const lv = sdk.metrics.l1Validators;
await check("getTotalL1ValidatorMetrics", () => lv.listMetrics({ metric: "totalCumulativeFeesDaily" }, O));
if (l1) {
  await check("getMetricsBySubnetId", () => lv.getMetricsBySubnetId({ subnetId: l1.subnetId, metric: "perSubnetPayingValidators" }, O));
  const l1v = await first(pn.listL1Validators({ network, subnetId: l1.subnetId }, O)).catch(() => undefined);
  const v = l1v?.validators?.[0];
  if (v) {
    await check("getMetricsByValidationId", () => lv.getMetricsByValidationId({ l1ValidationId: v.validationId, metric: "validationFeesDaily" }, O));
    await check("getMetricsByNodeId", () => lv.getMetricsByNodeId({ nodeId: v.nodeId, metric: "perNodeCumulativeFeesPaid" }, O));
  }
}
if (l1?.l1ConversionTransactionHash) {
  await check("getAggregatedSignatures", () => sig.get({ network, txHash: l1.l1ConversionTransactionHash }, O));
}

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
