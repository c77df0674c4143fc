// compile.js compiles the Solidity sources next to it with solcjs and writes
// one artifact per contract to ../artifacts/<Name>.json: {"contractName",
// "abi", "bytecode", "deployedBytecode", "compiler"}. Run by `go generate`.
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const dir = __dirname;
const sources = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[f] = { content: fs.readFileSync(path.join(dir, f), 'utf8') };
}
const input = {
  language: 'Solidity',
  sources,
  settings: {
    evmVersion: 'cancun',
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of out.errors || []) {
  console.error(e.formattedMessage);
  if (e.severity === 'error') failed = true;
}
if (failed) process.exit(1);
const outDir = path.join(dir, '..', 'artifacts');
fs.mkdirSync(outDir, { recursive: true });
const want = ['AvaToken', 'AvaNFT', 'AvaMulti', 'Factory', 'Child', 'IcmMessenger'];
for (const [file, contracts] of Object.entries(out.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    if (!want.includes(name)) continue;
    const art = {
      contractName: name,
      sourceName: file,
      compiler: 'solc ' + solc.version(),
      abi: c.abi,
      bytecode: '0x' + c.evm.bytecode.object,
      deployedBytecode: '0x' + c.evm.deployedBytecode.object,
    };
    fs.writeFileSync(path.join(outDir, name + '.json'), JSON.stringify(art, null, 1) + '\n');
  }
}
