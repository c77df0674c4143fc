// Watches an EVM chain over WebSocket with ethers v6 (WebSocketProvider:
// provider.on("block"), a contract's Transfer listener) and viem (webSocket
// transport: watchBlocks, watchContractEvent), unmodified, while it makes
// ERC-20 transfers over HTTP; prints what each library saw and what was
// made, as JSON.
//
//   node ws-watch.mjs watch <ws url> <http rpc url> <transfers>
//     Deploys the project's ERC-20 (AvaToken) and mints to ewoq over HTTP,
//     subscribes with both libraries, prints {"ready":true} and waits for a
//     line on stdin (the caller checks the subscriptions are live), sends
//     the transfers one by one, waits until both libraries saw every block
//     and event (or 60 s), then a second more for anything extra, and
//     prints {"txs":[{hash,block,to,value}], "ethers":{blocks,events},
//     "viem":{blocks,events}}.
//
//   node ws-watch.mjs blocks <http rpc url> <n>
//     Makes n blocks, one native transfer each, and prints {"blocks":n}.
//
//   node ws-watch.mjs close <ws url> <api key>
//     Connects ethers' WebSocketProvider with the key in X-Glacier-Api-Key,
//     listens for blocks, prints {"ready":true}, and prints how many blocks
//     it saw and the close frame (code, reason) when the edge closes the
//     connection: {"blocks":n,"code":c,"reason":"..."}.
//
// Exits non-zero on any failure.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { ContractFactory, Contract, JsonRpcProvider, WebSocketProvider, Wallet, parseEther } from "ethers";
import { createPublicClient, webSocket } from "viem";
import WebSocket from "ws";

const ewoqKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
const artifact = (name) =>
  JSON.parse(readFileSync(new URL(`../../local/source/devnet/evm/artifacts/${name}.json`, import.meta.url), "utf8"));
const stdinLine = () =>
  new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    rl.once("line", () => {
      rl.close();
      resolve();
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function watch(wsURL, rpcURL, n) {
  const http = new JsonRpcProvider(rpcURL, undefined, { batchMaxCount: 1, staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(ewoqKey, http);
  const a = artifact("AvaToken");
  const deployed = await new ContractFactory(a.abi, a.bytecode, wallet).deploy();
  await deployed.deploymentTransaction().wait(1, 60_000);
  const token = new Contract(await deployed.getAddress(), a.abi, wallet);
  await (await token.mint(wallet.address, parseEther("1000"))).wait(1, 60_000);
  const address = await token.getAddress();

  const seen = { ethers: { blocks: [], events: [] }, viem: { blocks: [], events: [] } };
  const ethersWS = new WebSocketProvider(wsURL);
  await ethersWS.getBlockNumber();
  await ethersWS.on("block", (number) => seen.ethers.blocks.push(number));
  const watched = new Contract(address, a.abi, ethersWS);
  await watched.on("Transfer", (from, to, value, ev) =>
    seen.ethers.events.push({ hash: ev.log.transactionHash, from, to, value: value.toString() }));

  const client = createPublicClient({ transport: webSocket(wsURL) });
  const unwatchBlocks = client.watchBlocks({
    onBlock: (b) => seen.viem.blocks.push(Number(b.number)),
    onError: (e) => console.error(`viem watchBlocks: ${e.message}`),
  });
  const unwatchEvents = client.watchContractEvent({
    address, abi: a.abi, eventName: "Transfer",
    onLogs: (logs) => {
      for (const l of logs) {
        seen.viem.events.push({ hash: l.transactionHash, from: l.args.from, to: l.args.to, value: l.args.value.toString() });
      }
    },
    onError: (e) => console.error(`viem watchContractEvent: ${e.message}`),
  });
  console.log(JSON.stringify({ ready: true, token: address }));
  await stdinLine();

  const txs = [];
  for (let i = 0; i < n; i++) {
    const to = Wallet.createRandom().address;
    const value = parseEther(String(i + 1));
    const tx = await token.transfer(to, value);
    const r = await tx.wait(1, 60_000);
    txs.push({ hash: tx.hash, block: r.blockNumber, to, value: value.toString() });
  }
  const done = () => ["ethers", "viem"].every((l) => seen[l].blocks.length >= n && seen[l].events.length >= n);
  for (let t = 0; t < 600 && !done(); t++) await sleep(100);
  await sleep(1000);
  unwatchBlocks();
  unwatchEvents();
  await ethersWS.destroy();
  console.log(JSON.stringify({ token: address, txs, ...seen }));
}

async function close(wsURL, key) {
  const socket = new WebSocket(wsURL, { headers: { "X-Glacier-Api-Key": key } });
  const provider = new WebSocketProvider(socket);
  let blocks = 0;
  const closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  await provider.getBlockNumber();
  await provider.on("block", () => blocks++);
  console.log(JSON.stringify({ ready: true }));
  const c = await Promise.race([closed, sleep(120_000).then(() => ({ code: 0, reason: "not closed in 120 s" }))]);
  console.log(JSON.stringify({ blocks, ...c }));
  provider.destroy().catch(() => {});
}

async function blocks(rpcURL, n) {
  const http = new JsonRpcProvider(rpcURL, undefined, { batchMaxCount: 1, staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(ewoqKey, http);
  for (let i = 0; i < n; i++) {
    const tx = await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n });
    await tx.wait(1, 60_000);
  }
  console.log(JSON.stringify({ blocks: n }));
}

try {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === "watch") await watch(args[0], args[1], Number(args[2]));
  else if (mode === "close") await close(args[0], args[1]);
  else if (mode === "blocks") await blocks(args[0], Number(args[1]));
  else throw new Error(`unknown mode ${mode}`);
  process.exit(0);
} catch (e) {
  console.error(`ws-watch failed: ${String(e?.stack ?? e).slice(0, 1500)}`);
  process.exit(1);
}
