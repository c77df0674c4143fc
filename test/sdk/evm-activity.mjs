// Makes EVM activity with ethers v6 from the funded ewoq key on an EVM
// JSON-RPC endpoint (avaedge's /ext/bc/C/rpc, or an avalanchego node's
// C-Chain), with the project's own contracts
// (local/source/devnet/evm/artifacts), and prints what it did as JSON:
//
//   a native transfer to a fresh address (to);
//   an ERC-20 (AvaToken) deployed, minted to ewoq and partly sent to `to`;
//   an ERC-721 (AvaNFT) deployed and its token 1 minted to `to`;
//   a Factory deployed, then a Child created through it with CREATE
//   (funded, so the creation carries value) and one with CREATE2.
//
//   node evm-activity.mjs http://127.0.0.1:9650/ext/bc/C/rpc
//
// Exits non-zero on any failure.
import { readFileSync } from "node:fs";
import { ContractFactory, Contract, Interface, JsonRpcProvider, Wallet, id, parseEther } from "ethers";

const rpc = process.argv[2];
const ewoqKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
const artifact = (name) =>
  JSON.parse(readFileSync(new URL(`../../local/source/devnet/evm/artifacts/${name}.json`, import.meta.url), "utf8"));

try {
  // No cache: a nonce read within 250 ms of the last would be reused.
  const provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(ewoqKey, provider);
  const to = Wallet.createRandom().address;
  const out = { chainId: (await provider.getNetwork()).chainId.toString(), from: wallet.address, to, txs: {} };
  // Sends one transaction and records its hash and block.
  const record = async (name, sent) => {
    const tx = await sent;
    const r = await tx.wait(1, 60_000);
    if (r.status !== 1) throw new Error(`${name} (${tx.hash}) reverted`);
    out.txs[name] = { hash: tx.hash, block: r.blockNumber };
    return r;
  };
  const deploy = async (name) => {
    const a = artifact(name);
    const f = new ContractFactory(a.abi, a.bytecode, wallet);
    const c = await f.deploy();
    const r = await record(`deploy${name}`, c.deploymentTransaction());
    return new Contract(r.contractAddress, a.abi, wallet);
  };

  out.nativeValue = parseEther("0.5").toString();
  await record("native", wallet.sendTransaction({ to, value: out.nativeValue }));

  const token = await deploy("AvaToken");
  out.token = await token.getAddress();
  await record("mint", token.mint(wallet.address, parseEther("1000")));
  out.tokenValue = parseEther("12.5").toString();
  await record("tokenTransfer", token.transfer(to, out.tokenValue));

  const nft = await deploy("AvaNFT");
  out.nft = await nft.getAddress();
  await record("nftMint", nft.mint(to));
  out.nftTokenId = "1";

  const factory = await deploy("Factory");
  out.factory = await factory.getAddress();
  const deployed = new Interface(artifact("Factory").abi);
  const child = (r) => {
    for (const l of r.logs) {
      if (l.topics[0] === id("Deployed(address,bool,bytes32)")) return deployed.parseLog(l).args.child;
    }
    throw new Error("no Deployed event");
  };
  out.childValue = parseEther("0.25").toString();
  out.childCreate = child(await record("factoryCreate", factory.deploy(7, { value: out.childValue })));
  out.childCreate2 = child(await record("factoryCreate2", factory.deploy2(8, id("avaedge e2e salt"))));
  console.log(JSON.stringify(out));
} catch (e) {
  console.error(`evm-activity failed: ${String(e?.message ?? e).slice(0, 800)}`);
  process.exit(1);
}
