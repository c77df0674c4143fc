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
//
// An op prefixed "chainkit:" calls @avalanche-sdk/chainkit (0.3.13) instead,
// from its Avalanche object: "chainkit:data.usageMetrics.getUsage".
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";
import { Avalanche } from "@avalanche-sdk/chainkit";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const calls = JSON.parse(process.argv[3] ?? "[]");
const apiKey = process.env.AVAEDGE_SDK_API_KEY || undefined;
const sdk = new AvaCloudSDK({ serverURL: base, apiKey });
// Telemetry off: chainkit would otherwise post every call to its vendor.
const chainkit = new Avalanche({ serverURL: base, apiKey, enableTelemetry: false });
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
  const ck = c.op.startsWith("chainkit:");
  const parts = c.op.replace(/^chainkit:/, "").split(".");
  const name = parts.pop();
  let obj = ck ? chainkit : sdk;
  for (const p of parts) obj = obj?.[p];
  try {
    if (typeof obj?.[name] !== "function") throw new Error(`no SDK method ${c.op}`);
    out[c.name] = { ok: true, result: await first(obj[name](c.args ?? {}, O)) };
  } catch (e) {
    failed++;
    out[c.name] = { ok: false, error: String(e?.message ?? e).slice(0, 2000) };
  }
}
console.log(JSON.stringify(out, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
process.exit(failed ? 1 : 0);
