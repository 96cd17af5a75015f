// Command etcd is the upstream etcd server, built from its Go module for the test suite.
// The version it reports comes from the module itself (go.etcd.io/etcd/api/v3/version).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
