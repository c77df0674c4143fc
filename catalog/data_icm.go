package catalog

import "net/http"

// dataICM returns the Data API's interchain routes: the ICM messages
// (glacier.json's "Interchain Messaging") and the signature aggregator.
func dataICM() []Route {
	get := http.MethodGet
	return []Route{
		rest(Data, "getIcmMessage", get, "/v1/icm/messages/{messageId}", 20, short, pathP("messageId")),
		rest(Data, "listIcmMessages", get, "/v1/icm/messages", 20, short, icmListParams()...),
		rest(Data, "listIcmMessagesByAddress", get, "/v1/icm/addresses/{address}/messages", 20, short,
			pageToken, pageSize(100, "10"), address, netQuery),
		withCheck(rest(Data, "aggregateSignatures", http.MethodPost, "/v1/signatureAggregator/{network}/aggregateSignatures", 20, never,
			network,
			Param{Name: "message", In: Body, Format: Hex},
			Param{Name: "justification", In: Body, Format: Hex},
			Param{Name: "signingSubnetId", In: Body},
			Param{Name: "quorumPercentage", In: Body, Kind: Integer, Min: 0, HasMin: true, Max: 100, HasMax: true, Default: "67"},
			Param{Name: "quorumPercentageBuffer", In: Body, Kind: Integer, Min: 0, HasMin: true, Max: 100, HasMax: true, Default: "0"},
			Param{Name: "pChainHeight", In: Body, Kind: Integer, Min: 0, HasMin: true, Default: "0"},
		), quorumRule),
		rest(Data, "getAggregatedSignatures", get, "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}", 20, short,
			network, pathP("txHash")),
	}
}

// icmListParams are the filters of listIcmMessages, which its legacy
// predecessor listTeleporterMessages shares.
func icmListParams() []Param {
	return []Param{pageToken, pageSize(100, "10"), queryP("sourceBlockchainId"), queryP("destinationBlockchainId"),
		queryP("blockchainId"), queryP("to"), queryP("from"), netQuery}
}
