// Drives avaedge's /ext/bc/C/rpc (or the chain at the path given second) with ethers v6: reads the chain id and block
// number, sends a transfer from the funded ewoq key to a fresh address, waits
// for its receipt and reads the recipient's balance. Prints the results as
// JSON on stdout; exits non-zero on any failure.
//
//   node ethers.mjs http://127.0.0.1:8080 [/ext/bc/devl1/rpc]
import { JsonRpcProvider, Wallet, parseEther } from "ethers";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const path = process.argv[3] ?? "/ext/bc/C/rpc";
const ewoqKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
try {
  const provider = new JsonRpcProvider(`${base}${path}`, undefined, { batchMaxCount: 1, cacheTimeout: -1 });
  const net = await provider.getNetwork();
  const before = await provider.getBlockNumber();
  const wallet = new Wallet(ewoqKey, provider);
  const to = Wallet.createRandom().address;
  const value = parseEther("0.0123");
  const tx = await wallet.sendTransaction({ to, value });
  const receipt = await tx.wait(1, 60_000);
  const balance = await provider.getBalance(to);
  const after = await provider.getBlockNumber();
  console.log(JSON.stringify({
    chainId: net.chainId.toString(),
    from: wallet.address,
    blockBefore: before,
    blockAfter: after,
    txHash: tx.hash,
    status: receipt.status,
    receiptBlock: receipt.blockNumber,
    to,
    value: value.toString(),
    balance: balance.toString(),
  }));
} catch (e) {
  console.error(`ethers failed: ${String(e?.message ?? e).slice(0, 800)}`);
  process.exit(1);
}
