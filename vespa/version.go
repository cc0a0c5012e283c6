package vespa

// Version is the version of govespa.
const Version = "0.1.0"

// UserAgent is the User-Agent every govespa client sends unless told
// otherwise ([WithUserAgent] and its counterparts in cloud and models):
// "govespa/" + [Version], so a server's access log names one client.
const UserAgent = "govespa/" + Version
