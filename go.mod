module github.com/vkbench/vkbench

go 1.26

require (
	github.com/goki/vulkan v1.0.8 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
