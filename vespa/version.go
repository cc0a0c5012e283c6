package vespa

// Version is the version of govespa. It is part of the default User-Agent,
// "govespa/" + Version.
const Version = "0.1.0"
