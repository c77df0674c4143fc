// Asks avaedge to aggregate signatures over an unsigned Warp message with the
// official AvaCloud SDK's signatureAggregator.aggregate, and prints the
// answer as JSON on stdout.
//
//   node warp.mjs http://127.0.0.1:8080 fuji <unsigned message hex>
//
// AVAEDGE_SDK_API_KEY, when set, is the SDK's apiKey.
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

const [base, network, message] = process.argv.slice(2);
const apiKey = process.env.AVAEDGE_SDK_API_KEY || undefined;
const sdk = new AvaCloudSDK({ serverURL: base, network, apiKey });
try {
  const res = await sdk.data.signatureAggregator.aggregate(
    { network, signatureAggregatorRequest: { message } },
    { serverURL: base, retries: { strategy: "none" } },
  );
  console.log(JSON.stringify(res));
} catch (e) {
  console.error(`aggregate failed: ${String(e?.message ?? e).slice(0, 800)}`);
  process.exit(1);
}
