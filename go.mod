module github.com/govespa/govespa

go 1.25.0

require (
	github.com/go-resty/resty/v2 v2.17.2
	github.com/sethvargo/go-retry v0.5.0
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.57.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/text v0.41.0 // indirect
)
