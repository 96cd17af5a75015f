# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_kueue_global_optspecs
    string join \n kubeconfig= context= n/namespace= color= v/verbose h/help V/version
end

function __fish_kubectl_kueue_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_kueue_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_kueue_using_subcommand
    set -l cmd (__fish_kubectl_kueue_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "simulate" -d 'Simulate admission and preemption on files (or the embedded seed scenario), with what-if edits'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "explain" -d 'Explain why a workload is pending (or how it was admitted) and what would change it'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "version" -d 'Print the client version (and, with a cluster, whether upstream Kueue or ours runs it)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "run-controller" -d 'Run the admission and preemption controller (in-cluster or from a laptop)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "install" -d 'Install the CRDs, RBAC, the Job admission policy and the controller Deployment (--print: show them)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "uninstall" -d 'Remove what `install` put in place (--crds: the CRDs and all queue objects too)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "submit" -d 'Submit a Job to a LocalQueue (from a file or from flags), see its Workload and position, and --wait for it'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "status" -d 'Quotas and usage per cohort and ClusterQueue, LocalQueues, and workloads with their state, position and wait (-w to follow)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "create" -d 'Create a ClusterQueue, LocalQueue, ResourceFlavor or WorkloadPriorityClass'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "list" -d 'List ClusterQueues, LocalQueues, Workloads (with their position) or ResourceFlavors'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "stop" -d 'Stop a ClusterQueue, LocalQueue or Workload (no new admissions; drain unless told)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "resume" -d 'Resume a stopped ClusterQueue, LocalQueue or Workload'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "delete" -d 'Delete Workloads (through the Job that owns them), after confirmation'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "init" -d 'Write a ready GPU queueing setup (flavors, ClusterQueues, LocalQueues, priorities) from a few questions or flags'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "history" -d 'The cluster\'s recent workloads as a trace file (`history export`) for `simulate --trace`'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "completion" -d 'Write the shell completion script for bash, zsh or fish'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "__complete" -d 'Cobra\'s completion protocol, as kubectl asks plugins (used by completions/kubectl_complete-kueue)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -s f -l filename -d 'Manifests to read: a file, a directory, or - for stdin. Repeatable. Without any, the embedded seed scenario is simulated' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l set -d 'What-if edit applied before simulating (see below). Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l add -d 'What-if: add the Jobs or Workloads in this file or directory (as if submitted now). Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l remove -d 'What-if: remove this Workload or Job (NAMESPACE/NAME), as if it finished. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -s o -l output -d 'Output format: table (what changed), wide, json or yaml (the resulting objects), name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l now -d 'The simulation\'s clock (RFC 3339), used for conditions and for objects without a creationTimestamp. Defaults to the current time' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l api-version -d 'With -o json|yaml: write every object as kueue.x-k8s.io/v1beta1 or v1beta2. Without it, each object is written in the version it was read in (Workloads made from Jobs in the version most Kueue documents use)' -r -f -a "v1beta1\t''
v1beta2\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l trace -d 'Replay this trace (JSON Lines, as `history export` writes it) on the setup: wait times, usage, borrowing and preemptions per ClusterQueue and LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l compare -d 'With --trace: replay also on the setup in these manifests and show both side by side' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l plot -d 'With --trace: write charts (usage over time, wait distribution; SVG and PNG) into DIR' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l resource -d 'With --trace: the resource usage figures are about (default nvidia.com/gpu when a ClusterQueue has quota for it)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l top -d 'With --trace and two setups: how many jobs whose wait changed most to list' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l live -d 'Simulate on the current cluster\'s state (from your kubeconfig) instead of files'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l strict-namespace-selector -d 'Read a ClusterQueue without namespaceSelector as upstream Kueue does (it selects no namespace) instead of every namespace, as the seed article expects'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -l forecast-accuracy -d 'With --trace: measure the start-time forecast made at each submission against the admission the replay produced (median and p90 absolute error)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand simulate" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -s f -l filename -d 'Explain on manifests instead of the cluster (file, directory or -). Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -s o -l output -d 'Output format: table (for people), json or yaml (the same content as data)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -l now -d 'The clock (RFC 3339) for objects without a creationTimestamp; defaults to now' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -l strict-namespace-selector -d 'Read a ClusterQueue without namespaceSelector as upstream does (no namespace)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand explain" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -l short -d 'Print only the version number'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -l client -d 'Print only the client\'s version; don\'t contact the cluster'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand version" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l config -d 'Upstream\'s controller configuration (config.kueue.x-k8s.io/v1beta1 Configuration), the same file `kubectl kueue simulate` reads: fairSharing, manageJobsWithoutQueueName, metrics and health addresses, leaderElection, clientConnection' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l leader-elect -d 'Elect one active replica through a Lease (leaderElection in --config sets the lease name, namespace and timings). Default: the file\'s leaderElection.leaderElect, else off' -r -f -a "true\t''
false\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l metrics-bind-address -d 'Where to serve /metrics (`:PORT`, `HOST:PORT`, `0` to disable), over HTTPS for callers whose token may `get` the non-resource URL /metrics (TokenReview and SubjectAccessReview, as upstream). Default: the configuration\'s metrics.bindAddress (`:8443`)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l metrics-cert-dir -d 'Directory with the /metrics serving certificate (tls.crt, tls.key), e.g. a mounted Secret. Default: a self-signed certificate generated in memory' -r -F
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l health-probe-bind-address -d 'Where to serve /healthz and /readyz. Default: health.healthProbeBindAddress (`:8081`)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l webhook-port -d 'Port of the conversion webhook (HTTPS `/convert`, served when the CRDs convert through a webhook; `0`: never). Default: the configuration\'s webhook.port (9443). The certificate is kept in the Secret internalCertManagement.webhookSecretName (kueue-webhook-server-cert) of the controller\'s namespace and its CA injected into the CRDs; with internalCertManagement.enable false, tls.crt/tls.key are read from webhook.certDir instead' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l visibility-bind-address -d 'Where to serve the visibility API (`visibility.kueue.x-k8s.io`, HTTPS; served when an APIService registers it; `0`: never). Default: a v1beta2 configuration\'s visibilityServer (bindAddress, bindPort; port 8082 when unset), else `:8082` (upstream\'s visibilityServer port) in a pod, never elsewhere (the API server reaches it through the in-cluster Service only)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l visibility-cert-dir -d 'Directory with the visibility API\'s serving certificate (tls.crt, tls.key). Default: a self-signed certificate generated in memory (the APIServices skip verification, as upstream\'s)' -r -F
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l max-concurrent-writes -d 'Writes to the API server in flight at once' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l force -d 'Start even when upstream Kueue\'s controller seems to run in the cluster'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l metrics-insecure -d 'Serve /metrics over plain HTTP without authentication; only on a loopback address'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -l strict-namespace-selector -d 'Read a ClusterQueue without namespaceSelector as upstream does (no namespace)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand run-controller" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l image -d 'Container image of the controller (built from the repository\'s Dockerfile); pin it by digest in production: `REPO@sha256:<digest>`' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l replicas -d 'Controller replicas (one leads, the others wait for the lease)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l webhook-url -d 'Where the API server reaches the conversion webhook of a `run-controller` run outside the cluster (`https://HOST:PORT/convert`, HOST in its certificate): the CRDs then serve v1beta1 and v1beta2 (stored) with `--without-controller` too. Default: the in-cluster Service kueue-webhook-service; with `--without-controller`, v1beta1-only CRDs (no webhook needed)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l print -d 'Print the manifests (YAML) instead of applying them'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l without-controller -d 'Leave the controller Deployment out (CRDs, RBAC and the admission policy only), for running `kubectl kueue run-controller` elsewhere'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -l skip-crds -d 'Leave the CRDs out (they are managed another way)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand install" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -l crds -d 'Also delete the CRDs, and with them every ClusterQueue, LocalQueue, Workload... (the controller\'s finalizer is removed from Workloads first)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s f -l filename -d 'Job manifests: a file, a directory, or - for stdin (batch/v1 Jobs only). Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s q -l queue -d 'The LocalQueue (in the Job\'s namespace) to submit to; overrides the Job\'s label' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s p -l priority -d 'A WorkloadPriorityClass for the Job (it must exist)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l image -d 'Container image: builds a Job from flags instead of -f' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l name -d 'Name of the Job (default: from the image, with a random suffix)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l gpus -d 'GPUs per pod' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l gpu-resource -d 'The resource name of --gpus' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l cpu -d 'CPU request per pod, e.g. 4 or 500m' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l memory -d 'Memory request per pod, e.g. 16Gi' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l parallelism -d 'Pods running at once' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l completions -d 'Pods that must succeed' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l wait -d 'Follow the Workload until it is admitted (or --wait=running, --wait=finished)' -r -f -a "admitted\t'Quota reserved and admitted'
running\t'Pods running'
finished\t'The Job completed or failed'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l timeout -d 'How long --wait waits (e.g. 90s, 10m, 2h)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l dry-run -d 'Create nothing: run the scheduler on a snapshot of the cluster and say whether the Job would be admitted now, on which flavor, whom it would preempt, or why it would wait'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand submit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s A -l all-namespaces -d 'LocalQueues and workloads of every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -l all -d 'Include finished workloads'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s w -l watch -d 'Redraw whenever a ClusterQueue, LocalQueue, Workload or Job changes (Ctrl-C to stop)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand status" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "clusterqueue" -d 'Create a ClusterQueue: quota per flavor and resource, cohort, preemption'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "cq" -d 'Create a ClusterQueue: quota per flavor and resource, cohort, preemption'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "localqueue" -d 'Create a LocalQueue in a namespace, pointing to a ClusterQueue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "lq" -d 'Create a LocalQueue in a namespace, pointing to a ClusterQueue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "resourceflavor" -d 'Create a ResourceFlavor: the node labels, taints and tolerations of a kind of node'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "rf" -d 'Create a ResourceFlavor: the node labels, taints and tolerations of a kind of node'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "workloadpriorityclass" -d 'Create a WorkloadPriorityClass (jobs pick it with --priority or the kueue.x-k8s.io/priority-class label)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "wpc" -d 'Create a WorkloadPriorityClass (jobs pick it with --priority or the kueue.x-k8s.io/priority-class label)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l cohort -d 'The cohort the ClusterQueue borrows from and lends to' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l queuing-strategy -d 'Queueing strategy: BestEffortFIFO (default) or StrictFIFO' -r -f -a "BestEffortFIFO\t''
StrictFIFO\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l namespace-selector -d 'Namespaces allowed to submit, by label: KEY=VALUE[,KEY=VALUE]. Without it, every namespace' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l reclaim-within-cohort -d 'Whether a pending workload may preempt workloads of other ClusterQueues in the cohort that use more than their nominal quota' -r -f -a "Never\t''
LowerPriority\t''
Any\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l preemption-within-cluster-queue -d 'Whether a pending workload that does not fit in the nominal quota may preempt workloads of its own ClusterQueue' -r -f -a "Never\t''
LowerPriority\t''
LowerOrNewerEqualPriority\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l nominal-quota -d 'Nominal quota: FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l borrowing-limit -d 'How much more than its nominal quota the ClusterQueue may borrow from the cohort (same form; needs --cohort). Unset: unlimited' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l lending-limit -d 'How much of its unused nominal quota the ClusterQueue lends to the cohort (same form; needs --cohort). Unset: all of it' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from clusterqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l cohort -d 'The cohort the ClusterQueue borrows from and lends to' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l queuing-strategy -d 'Queueing strategy: BestEffortFIFO (default) or StrictFIFO' -r -f -a "BestEffortFIFO\t''
StrictFIFO\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l namespace-selector -d 'Namespaces allowed to submit, by label: KEY=VALUE[,KEY=VALUE]. Without it, every namespace' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l reclaim-within-cohort -d 'Whether a pending workload may preempt workloads of other ClusterQueues in the cohort that use more than their nominal quota' -r -f -a "Never\t''
LowerPriority\t''
Any\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l preemption-within-cluster-queue -d 'Whether a pending workload that does not fit in the nominal quota may preempt workloads of its own ClusterQueue' -r -f -a "Never\t''
LowerPriority\t''
LowerOrNewerEqualPriority\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l nominal-quota -d 'Nominal quota: FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l borrowing-limit -d 'How much more than its nominal quota the ClusterQueue may borrow from the cohort (same form; needs --cohort). Unset: unlimited' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l lending-limit -d 'How much of its unused nominal quota the ClusterQueue lends to the cohort (same form; needs --cohort). Unset: all of it' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from cq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s c -l clusterqueue -d 'The ClusterQueue its workloads go to (required)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s i -l ignore-unknown-cq -d 'Create it even when the ClusterQueue does not exist (yet)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from localqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s c -l clusterqueue -d 'The ClusterQueue its workloads go to (required)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s i -l ignore-unknown-cq -d 'Create it even when the ClusterQueue does not exist (yet)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from lq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l node-labels -d 'Labels of the flavor\'s nodes: KEY=VALUE[,KEY=VALUE]. Admitted pods get them as node selector' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l node-taints -d 'Taints of the flavor\'s nodes: KEY[=VALUE]:EFFECT[,...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l tolerations -d 'Tolerations added to admitted pods: KEY[=VALUE][:EFFECT] or :EFFECT[,...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from resourceflavor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l node-labels -d 'Labels of the flavor\'s nodes: KEY=VALUE[,KEY=VALUE]. Admitted pods get them as node selector' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l node-taints -d 'Taints of the flavor\'s nodes: KEY[=VALUE]:EFFECT[,...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l tolerations -d 'Tolerations added to admitted pods: KEY[=VALUE][:EFFECT] or :EFFECT[,...]. Repeatable' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from rf" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l value -d 'Priority value; higher goes first and may preempt lower' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l description -d 'What the class is for' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from workloadpriorityclass" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l value -d 'Priority value; higher goes first and may preempt lower' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l description -d 'What the class is for' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l dry-run -d 'Only print the object (client) or have the API server check it without storing it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from wpc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "clusterqueue" -d 'Create a ClusterQueue: quota per flavor and resource, cohort, preemption'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "localqueue" -d 'Create a LocalQueue in a namespace, pointing to a ClusterQueue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "resourceflavor" -d 'Create a ResourceFlavor: the node labels, taints and tolerations of a kind of node'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "workloadpriorityclass" -d 'Create a WorkloadPriorityClass (jobs pick it with --priority or the kueue.x-k8s.io/priority-class label)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "clusterqueue" -d 'List ClusterQueues with their cohort, pending and admitted workloads, and whether they are active'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "cq" -d 'List ClusterQueues with their cohort, pending and admitted workloads, and whether they are active'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "clusterqueues" -d 'List ClusterQueues with their cohort, pending and admitted workloads, and whether they are active'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "localqueue" -d 'List LocalQueues with their ClusterQueue and workload counts'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "lq" -d 'List LocalQueues with their ClusterQueue and workload counts'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "localqueues" -d 'List LocalQueues with their ClusterQueue and workload counts'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "workload" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "kwl" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "workloads" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "kueueworkload" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "kueueworkloads" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "resourceflavor" -d 'List ResourceFlavors with their node labels'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "rf" -d 'List ResourceFlavors with their node labels'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "resourceflavors" -d 'List ResourceFlavors with their node labels'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and not __fish_seen_subcommand_from clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -l active -d 'Only active (true) or inactive (false) ClusterQueues' -r -f -a "true\t''
false\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueue" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -l active -d 'Only active (true) or inactive (false) ClusterQueues' -r -f -a "true\t''
false\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from cq" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -l active -d 'Only active (true) or inactive (false) ClusterQueues' -r -f -a "true\t''
false\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from clusterqueues" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s c -l clusterqueue -d 'Only LocalQueues pointing to this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueue" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s c -l clusterqueue -d 'Only LocalQueues pointing to this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from lq" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s c -l clusterqueue -d 'Only LocalQueues pointing to this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s l -l selector -d 'Label selector, e.g. team=a' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from localqueues" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s c -l clusterqueue -d 'Only Workloads of this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s q -l localqueue -d 'Only Workloads of this LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l status -d 'Only Workloads in this status: all, pending, quotareserved, admitted, finished. Repeatable' -r -f -a "all\t''
pending\t''
quotareserved\t''
admitted\t''
finished\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l for -d 'Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s l -l selector -d 'Label selector, e.g. kueue.x-k8s.io/job-uid=....' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workload" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s c -l clusterqueue -d 'Only Workloads of this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s q -l localqueue -d 'Only Workloads of this LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l status -d 'Only Workloads in this status: all, pending, quotareserved, admitted, finished. Repeatable' -r -f -a "all\t''
pending\t''
quotareserved\t''
admitted\t''
finished\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l for -d 'Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s l -l selector -d 'Label selector, e.g. kueue.x-k8s.io/job-uid=....' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kwl" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s c -l clusterqueue -d 'Only Workloads of this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s q -l localqueue -d 'Only Workloads of this LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l status -d 'Only Workloads in this status: all, pending, quotareserved, admitted, finished. Repeatable' -r -f -a "all\t''
pending\t''
quotareserved\t''
admitted\t''
finished\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l for -d 'Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s l -l selector -d 'Label selector, e.g. kueue.x-k8s.io/job-uid=....' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from workloads" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s c -l clusterqueue -d 'Only Workloads of this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s q -l localqueue -d 'Only Workloads of this LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l status -d 'Only Workloads in this status: all, pending, quotareserved, admitted, finished. Repeatable' -r -f -a "all\t''
pending\t''
quotareserved\t''
admitted\t''
finished\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l for -d 'Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s l -l selector -d 'Label selector, e.g. kueue.x-k8s.io/job-uid=....' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkload" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s c -l clusterqueue -d 'Only Workloads of this ClusterQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s q -l localqueue -d 'Only Workloads of this LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l status -d 'Only Workloads in this status: all, pending, quotareserved, admitted, finished. Repeatable' -r -f -a "all\t''
pending\t''
quotareserved\t''
admitted\t''
finished\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l for -d 'Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s l -l selector -d 'Label selector, e.g. kueue.x-k8s.io/job-uid=....' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s A -l all-namespaces -d 'In every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from kueueworkloads" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -s l -l selector -d 'Label selector' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavor" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -s l -l selector -d 'Label selector' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from rf" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -s l -l selector -d 'Label selector' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from resourceflavors" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "clusterqueue" -d 'List ClusterQueues with their cohort, pending and admitted workloads, and whether they are active'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "localqueue" -d 'List LocalQueues with their ClusterQueue and workload counts'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "workload" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "resourceflavor" -d 'List ResourceFlavors with their node labels'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "clusterqueue" -d 'Stop a ClusterQueue: no new admissions; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "cq" -d 'Stop a ClusterQueue: no new admissions; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "localqueue" -d 'Stop a LocalQueue: no new admissions from it; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "lq" -d 'Stop a LocalQueue: no new admissions from it; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "workload" -d 'Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted and goes back to its queue as if preempted'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "kwl" -d 'Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted and goes back to its queue as if preempted'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "kueueworkload" -d 'Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted and goes back to its queue as if preempted'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l keep-already-running -d 'Let admitted workloads run to completion (stopPolicy Hold instead of HoldAndDrain)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from clusterqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l keep-already-running -d 'Let admitted workloads run to completion (stopPolicy Hold instead of HoldAndDrain)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from cq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l keep-already-running -d 'Let admitted workloads run to completion (stopPolicy Hold instead of HoldAndDrain)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from localqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l keep-already-running -d 'Let admitted workloads run to completion (stopPolicy Hold instead of HoldAndDrain)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from lq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from workload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kwl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from kueueworkload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from help" -f -a "clusterqueue" -d 'Stop a ClusterQueue: no new admissions; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from help" -f -a "localqueue" -d 'Stop a LocalQueue: no new admissions from it; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from help" -f -a "workload" -d 'Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted and goes back to its queue as if preempted'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand stop; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "clusterqueue" -d 'Resume a stopped ClusterQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "cq" -d 'Resume a stopped ClusterQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "localqueue" -d 'Resume a stopped LocalQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "lq" -d 'Resume a stopped LocalQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "workload" -d 'Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual ClusterQueue rules'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "kwl" -d 'Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual ClusterQueue rules'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "kueueworkload" -d 'Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual ClusterQueue rules'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and not __fish_seen_subcommand_from clusterqueue cq localqueue lq workload kwl kueueworkload help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from clusterqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from cq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from localqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from lq" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from workload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kwl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -l dry-run -d 'Only print what would change (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -s o -l output -d 'Output format: table, wide (more columns), json, yaml or name' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from kueueworkload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from help" -f -a "clusterqueue" -d 'Resume a stopped ClusterQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from help" -f -a "localqueue" -d 'Resume a stopped LocalQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from help" -f -a "workload" -d 'Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual ClusterQueue rules'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand resume; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -f -a "workload" -d 'Delete Workloads; one owned by a Job is removed by deleting the Job (after confirmation, or with --yes)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -f -a "kwl" -d 'Delete Workloads; one owned by a Job is removed by deleting the Job (after confirmation, or with --yes)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -f -a "kueueworkload" -d 'Delete Workloads; one owned by a Job is removed by deleting the Job (after confirmation, or with --yes)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and not __fish_seen_subcommand_from workload kwl kueueworkload help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -l dry-run -d 'Only print what would be deleted (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -s y -l yes -d 'Don\'t ask for confirmation'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -l all -d 'Every Workload in the namespace (or in every namespace with -A)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -s A -l all-namespaces -d 'With --all: in every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from workload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -l dry-run -d 'Only print what would be deleted (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -s y -l yes -d 'Don\'t ask for confirmation'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -l all -d 'Every Workload in the namespace (or in every namespace with -A)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -s A -l all-namespaces -d 'With --all: in every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kwl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -l dry-run -d 'Only print what would be deleted (client), or have the API server check it (server)' -r -f -a "none\t'Send the request'
client\t'Only print what would be sent'
server\t'Let the API server validate it without storing it'"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -s y -l yes -d 'Don\'t ask for confirmation'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -l all -d 'Every Workload in the namespace (or in every namespace with -A)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -s A -l all-namespaces -d 'With --all: in every namespace'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from kueueworkload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from help" -f -a "workload" -d 'Delete Workloads; one owned by a Job is removed by deleting the Job (after confirmation, or with --yes)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand delete; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l gpu-types -d 'GPU types and how many GPUs of each the cluster has: TYPE=COUNT[,TYPE=COUNT]' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l teams -d 'Teams, one namespace and ClusterQueue each' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l quota -d 'GPU quota of a team on a type, overriding the even split: TEAM:TYPE=COUNT[,...]' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l cpu -d 'CPU quota per team and GPU type' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l memory -d 'Memory quota per team and GPU type' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l cohort -d 'The cohort the teams share unused quota in; empty for none (no borrowing)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l borrowing-limit -d 'GPUs a team may borrow beyond its quota, per type (default: what the other teams have)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l priorities -d 'WorkloadPriorityClasses: NAME=VALUE[,NAME=VALUE]' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l queue-name -d 'Name of each team\'s LocalQueue' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l gpu-resource -d 'The GPU resource name' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l output-file -d 'Write the manifests here instead of stdout' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -s y -l non-interactive -d 'Ask nothing: every value not given takes its default. Implied when stdin is not a terminal'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -l apply -d 'Also create (server-side apply) the objects in the cluster'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand init" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -f -a "export" -d 'Write the cluster\'s Workloads (submission, admission and finish times, requests, queue, priority) as a trace for `simulate --trace`'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -f -a "generate" -d 'Write a generated week of the seed\'s two teams, replayed on the seed setup'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and not __fish_seen_subcommand_from export generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -s o -l output -d 'Where to write the trace (- for stdout)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -l since -d 'Only Workloads created within this long before now: 30m, 24h, 7d, 1d12h' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -s A -l all-namespaces -d 'Every namespace (default: the current one, or -n)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -s o -l output -d 'Where to write the trace (- for stdout)' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -l seed -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from generate" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write the cluster\'s Workloads (submission, admission and finish times, requests, queue, priority) as a trace for `simulate --trace`'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "generate" -d 'Write a generated week of the seed\'s two teams, replayed on the seed setup'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -l kubeconfig -d 'Path to the kubeconfig file to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -l color -d 'Colors: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand __complete" -s h -l help -d 'Print help'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "simulate" -d 'Simulate admission and preemption on files (or the embedded seed scenario), with what-if edits'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "explain" -d 'Explain why a workload is pending (or how it was admitted) and what would change it'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "version" -d 'Print the client version (and, with a cluster, whether upstream Kueue or ours runs it)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "run-controller" -d 'Run the admission and preemption controller (in-cluster or from a laptop)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "install" -d 'Install the CRDs, RBAC, the Job admission policy and the controller Deployment (--print: show them)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "uninstall" -d 'Remove what `install` put in place (--crds: the CRDs and all queue objects too)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "submit" -d 'Submit a Job to a LocalQueue (from a file or from flags), see its Workload and position, and --wait for it'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "status" -d 'Quotas and usage per cohort and ClusterQueue, LocalQueues, and workloads with their state, position and wait (-w to follow)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "create" -d 'Create a ClusterQueue, LocalQueue, ResourceFlavor or WorkloadPriorityClass'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "list" -d 'List ClusterQueues, LocalQueues, Workloads (with their position) or ResourceFlavors'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "stop" -d 'Stop a ClusterQueue, LocalQueue or Workload (no new admissions; drain unless told)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "resume" -d 'Resume a stopped ClusterQueue, LocalQueue or Workload'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "delete" -d 'Delete Workloads (through the Job that owns them), after confirmation'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "init" -d 'Write a ready GPU queueing setup (flavors, ClusterQueues, LocalQueues, priorities) from a few questions or flags'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "history" -d 'The cluster\'s recent workloads as a trace file (`history export`) for `simulate --trace`'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "completion" -d 'Write the shell completion script for bash, zsh or fish'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "__complete" -d 'Cobra\'s completion protocol, as kubectl asks plugins (used by completions/kubectl_complete-kueue)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and not __fish_seen_subcommand_from simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "clusterqueue" -d 'Create a ClusterQueue: quota per flavor and resource, cohort, preemption'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "localqueue" -d 'Create a LocalQueue in a namespace, pointing to a ClusterQueue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "resourceflavor" -d 'Create a ResourceFlavor: the node labels, taints and tolerations of a kind of node'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "workloadpriorityclass" -d 'Create a WorkloadPriorityClass (jobs pick it with --priority or the kueue.x-k8s.io/priority-class label)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "clusterqueue" -d 'List ClusterQueues with their cohort, pending and admitted workloads, and whether they are active'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "localqueue" -d 'List LocalQueues with their ClusterQueue and workload counts'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "workload" -d 'List Workloads with their queues, status and position in queue'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "resourceflavor" -d 'List ResourceFlavors with their node labels'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from stop" -f -a "clusterqueue" -d 'Stop a ClusterQueue: no new admissions; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from stop" -f -a "localqueue" -d 'Stop a LocalQueue: no new admissions from it; its admitted workloads are evicted unless --keep-already-running'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from stop" -f -a "workload" -d 'Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted and goes back to its queue as if preempted'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from resume" -f -a "clusterqueue" -d 'Resume a stopped ClusterQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from resume" -f -a "localqueue" -d 'Resume a stopped LocalQueue (stopPolicy None)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from resume" -f -a "workload" -d 'Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual ClusterQueue rules'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from delete" -f -a "workload" -d 'Delete Workloads; one owned by a Job is removed by deleting the Job (after confirmation, or with --yes)'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "export" -d 'Write the cluster\'s Workloads (submission, admission and finish times, requests, queue, priority) as a trace for `simulate --trace`'
complete -c kubectl-kueue -n "__fish_kubectl_kueue_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "generate" -d 'Write a generated week of the seed\'s two teams, replayed on the seed setup'
