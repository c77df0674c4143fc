// Calls the official AvaCloud SDK (@avalabs/avacloud-sdk 0.13.0) on avaedge
// and prints each answer as the SDK parsed it: the SDK validates every
// answer with strict zod schemas, so a call whose answer does not match the
// real service's shapes is reported as failed.
//
//   node calls.mjs http://127.0.0.1:8080 '[{"name":"subnets","op":"data.primaryNetwork.listSubnets","args":{"network":"fuji"}}]'
//
// op is the dotted path of an SDK method from the AvaCloudSDK object; args
// its request. A paged method's first page is printed. The output is one
// JSON object: name -> {"ok": true, "result": ...} or {"ok": false,
// "error": "..."}. Exits non-zero when any call fails.
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const calls = JSON.parse(process.argv[3] ?? "[]");
const apiKey = process.env.AVAEDGE_SDK_API_KEY || undefined;
const sdk = new AvaCloudSDK({ serverURL: base, apiKey });
// Every operation at avaedge, without retries (a retry would hide a failure).
const O = { serverURL: base, retries: { strategy: "none" } };

async function first(p) {
  const r = await p;
  if (r && typeof r[Symbol.asyncIterator] === "function") {
    for await (const page of r) return page.result ?? page;
  }
  return r?.result ?? r;
}

const out = {};
let failed = 0;
for (const c of calls) {
  const parts = c.op.split(".");
  const name = parts.pop();
  let obj = sdk;
  for (const p of parts) obj = obj?.[p];
  try {
    if (typeof obj?.[name] !== "function") throw new Error(`no SDK method ${c.op}`);
    out[c.name] = { ok: true, result: await first(obj[name](c.args ?? {}, O)) };
  } catch (e) {
    failed++;
    out[c.name] = { ok: false, error: String(e?.message ?? e).slice(0, 2000) };
  }
}
// Exit once stdout is flushed: a large answer written to a pipe would be cut
// short by an immediate exit.
process.stdout.write(JSON.stringify(out, (_, v) => (typeof v === "bigint" ? v.toString() : v)) + "\n", () => process.exit(failed ? 1 : 0));
