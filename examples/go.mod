module github.com/govespa/govespa/examples

go 1.25.0

require (
	github.com/govespa/govespa v0.0.0
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/term v0.45.0
)

require (
	github.com/go-resty/resty/v2 v2.17.2 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace github.com/govespa/govespa => ../
