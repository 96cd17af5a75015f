_kubectl__kueue() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="kubectl__kueue"
                ;;
            kubectl__kueue,__complete)
                cmd="kubectl__kueue__subcmd____complete"
                ;;
            kubectl__kueue,completion)
                cmd="kubectl__kueue__subcmd__completion"
                ;;
            kubectl__kueue,create)
                cmd="kubectl__kueue__subcmd__create"
                ;;
            kubectl__kueue,delete)
                cmd="kubectl__kueue__subcmd__delete"
                ;;
            kubectl__kueue,explain)
                cmd="kubectl__kueue__subcmd__explain"
                ;;
            kubectl__kueue,help)
                cmd="kubectl__kueue__subcmd__help"
                ;;
            kubectl__kueue,history)
                cmd="kubectl__kueue__subcmd__history"
                ;;
            kubectl__kueue,init)
                cmd="kubectl__kueue__subcmd__init"
                ;;
            kubectl__kueue,install)
                cmd="kubectl__kueue__subcmd__install"
                ;;
            kubectl__kueue,list)
                cmd="kubectl__kueue__subcmd__list"
                ;;
            kubectl__kueue,resume)
                cmd="kubectl__kueue__subcmd__resume"
                ;;
            kubectl__kueue,run-controller)
                cmd="kubectl__kueue__subcmd__run__subcmd__controller"
                ;;
            kubectl__kueue,simulate)
                cmd="kubectl__kueue__subcmd__simulate"
                ;;
            kubectl__kueue,status)
                cmd="kubectl__kueue__subcmd__status"
                ;;
            kubectl__kueue,stop)
                cmd="kubectl__kueue__subcmd__stop"
                ;;
            kubectl__kueue,submit)
                cmd="kubectl__kueue__subcmd__submit"
                ;;
            kubectl__kueue,uninstall)
                cmd="kubectl__kueue__subcmd__uninstall"
                ;;
            kubectl__kueue,version)
                cmd="kubectl__kueue__subcmd__version"
                ;;
            kubectl__kueue__subcmd__create,clusterqueue)
                cmd="kubectl__kueue__subcmd__create__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__create,cq)
                cmd="kubectl__kueue__subcmd__create__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__create,help)
                cmd="kubectl__kueue__subcmd__create__subcmd__help"
                ;;
            kubectl__kueue__subcmd__create,localqueue)
                cmd="kubectl__kueue__subcmd__create__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__create,lq)
                cmd="kubectl__kueue__subcmd__create__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__create,resourceflavor)
                cmd="kubectl__kueue__subcmd__create__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__create,rf)
                cmd="kubectl__kueue__subcmd__create__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__create,workloadpriorityclass)
                cmd="kubectl__kueue__subcmd__create__subcmd__workloadpriorityclass"
                ;;
            kubectl__kueue__subcmd__create,wpc)
                cmd="kubectl__kueue__subcmd__create__subcmd__workloadpriorityclass"
                ;;
            kubectl__kueue__subcmd__create__subcmd__help,clusterqueue)
                cmd="kubectl__kueue__subcmd__create__subcmd__help__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__create__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__create__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__create__subcmd__help,localqueue)
                cmd="kubectl__kueue__subcmd__create__subcmd__help__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__create__subcmd__help,resourceflavor)
                cmd="kubectl__kueue__subcmd__create__subcmd__help__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__create__subcmd__help,workloadpriorityclass)
                cmd="kubectl__kueue__subcmd__create__subcmd__help__subcmd__workloadpriorityclass"
                ;;
            kubectl__kueue__subcmd__delete,help)
                cmd="kubectl__kueue__subcmd__delete__subcmd__help"
                ;;
            kubectl__kueue__subcmd__delete,kueueworkload)
                cmd="kubectl__kueue__subcmd__delete__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__delete,kwl)
                cmd="kubectl__kueue__subcmd__delete__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__delete,workload)
                cmd="kubectl__kueue__subcmd__delete__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__delete__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__delete__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__delete__subcmd__help,workload)
                cmd="kubectl__kueue__subcmd__delete__subcmd__help__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__help,__complete)
                cmd="kubectl__kueue__subcmd__help__subcmd____complete"
                ;;
            kubectl__kueue__subcmd__help,completion)
                cmd="kubectl__kueue__subcmd__help__subcmd__completion"
                ;;
            kubectl__kueue__subcmd__help,create)
                cmd="kubectl__kueue__subcmd__help__subcmd__create"
                ;;
            kubectl__kueue__subcmd__help,delete)
                cmd="kubectl__kueue__subcmd__help__subcmd__delete"
                ;;
            kubectl__kueue__subcmd__help,explain)
                cmd="kubectl__kueue__subcmd__help__subcmd__explain"
                ;;
            kubectl__kueue__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__help,history)
                cmd="kubectl__kueue__subcmd__help__subcmd__history"
                ;;
            kubectl__kueue__subcmd__help,init)
                cmd="kubectl__kueue__subcmd__help__subcmd__init"
                ;;
            kubectl__kueue__subcmd__help,install)
                cmd="kubectl__kueue__subcmd__help__subcmd__install"
                ;;
            kubectl__kueue__subcmd__help,list)
                cmd="kubectl__kueue__subcmd__help__subcmd__list"
                ;;
            kubectl__kueue__subcmd__help,resume)
                cmd="kubectl__kueue__subcmd__help__subcmd__resume"
                ;;
            kubectl__kueue__subcmd__help,run-controller)
                cmd="kubectl__kueue__subcmd__help__subcmd__run__subcmd__controller"
                ;;
            kubectl__kueue__subcmd__help,simulate)
                cmd="kubectl__kueue__subcmd__help__subcmd__simulate"
                ;;
            kubectl__kueue__subcmd__help,status)
                cmd="kubectl__kueue__subcmd__help__subcmd__status"
                ;;
            kubectl__kueue__subcmd__help,stop)
                cmd="kubectl__kueue__subcmd__help__subcmd__stop"
                ;;
            kubectl__kueue__subcmd__help,submit)
                cmd="kubectl__kueue__subcmd__help__subcmd__submit"
                ;;
            kubectl__kueue__subcmd__help,uninstall)
                cmd="kubectl__kueue__subcmd__help__subcmd__uninstall"
                ;;
            kubectl__kueue__subcmd__help,version)
                cmd="kubectl__kueue__subcmd__help__subcmd__version"
                ;;
            kubectl__kueue__subcmd__help__subcmd__create,clusterqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__create__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__create,localqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__create__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__create,resourceflavor)
                cmd="kubectl__kueue__subcmd__help__subcmd__create__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__help__subcmd__create,workloadpriorityclass)
                cmd="kubectl__kueue__subcmd__help__subcmd__create__subcmd__workloadpriorityclass"
                ;;
            kubectl__kueue__subcmd__help__subcmd__delete,workload)
                cmd="kubectl__kueue__subcmd__help__subcmd__delete__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__help__subcmd__history,export)
                cmd="kubectl__kueue__subcmd__help__subcmd__history__subcmd__export"
                ;;
            kubectl__kueue__subcmd__help__subcmd__history,generate)
                cmd="kubectl__kueue__subcmd__help__subcmd__history__subcmd__generate"
                ;;
            kubectl__kueue__subcmd__help__subcmd__list,clusterqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__list__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__list,localqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__list__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__list,resourceflavor)
                cmd="kubectl__kueue__subcmd__help__subcmd__list__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__help__subcmd__list,workload)
                cmd="kubectl__kueue__subcmd__help__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__help__subcmd__resume,clusterqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__resume__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__resume,localqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__resume__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__resume,workload)
                cmd="kubectl__kueue__subcmd__help__subcmd__resume__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__help__subcmd__stop,clusterqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__stop__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__stop,localqueue)
                cmd="kubectl__kueue__subcmd__help__subcmd__stop__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__help__subcmd__stop,workload)
                cmd="kubectl__kueue__subcmd__help__subcmd__stop__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__history,export)
                cmd="kubectl__kueue__subcmd__history__subcmd__export"
                ;;
            kubectl__kueue__subcmd__history,generate)
                cmd="kubectl__kueue__subcmd__history__subcmd__generate"
                ;;
            kubectl__kueue__subcmd__history,help)
                cmd="kubectl__kueue__subcmd__history__subcmd__help"
                ;;
            kubectl__kueue__subcmd__history__subcmd__help,export)
                cmd="kubectl__kueue__subcmd__history__subcmd__help__subcmd__export"
                ;;
            kubectl__kueue__subcmd__history__subcmd__help,generate)
                cmd="kubectl__kueue__subcmd__history__subcmd__help__subcmd__generate"
                ;;
            kubectl__kueue__subcmd__history__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__history__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__list,clusterqueue)
                cmd="kubectl__kueue__subcmd__list__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__list,clusterqueues)
                cmd="kubectl__kueue__subcmd__list__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__list,cq)
                cmd="kubectl__kueue__subcmd__list__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__list,help)
                cmd="kubectl__kueue__subcmd__list__subcmd__help"
                ;;
            kubectl__kueue__subcmd__list,kueueworkload)
                cmd="kubectl__kueue__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__list,kueueworkloads)
                cmd="kubectl__kueue__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__list,kwl)
                cmd="kubectl__kueue__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__list,localqueue)
                cmd="kubectl__kueue__subcmd__list__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__list,localqueues)
                cmd="kubectl__kueue__subcmd__list__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__list,lq)
                cmd="kubectl__kueue__subcmd__list__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__list,resourceflavor)
                cmd="kubectl__kueue__subcmd__list__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__list,resourceflavors)
                cmd="kubectl__kueue__subcmd__list__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__list,rf)
                cmd="kubectl__kueue__subcmd__list__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__list,workload)
                cmd="kubectl__kueue__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__list,workloads)
                cmd="kubectl__kueue__subcmd__list__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__list__subcmd__help,clusterqueue)
                cmd="kubectl__kueue__subcmd__list__subcmd__help__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__list__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__list__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__list__subcmd__help,localqueue)
                cmd="kubectl__kueue__subcmd__list__subcmd__help__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__list__subcmd__help,resourceflavor)
                cmd="kubectl__kueue__subcmd__list__subcmd__help__subcmd__resourceflavor"
                ;;
            kubectl__kueue__subcmd__list__subcmd__help,workload)
                cmd="kubectl__kueue__subcmd__list__subcmd__help__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__resume,clusterqueue)
                cmd="kubectl__kueue__subcmd__resume__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__resume,cq)
                cmd="kubectl__kueue__subcmd__resume__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__resume,help)
                cmd="kubectl__kueue__subcmd__resume__subcmd__help"
                ;;
            kubectl__kueue__subcmd__resume,kueueworkload)
                cmd="kubectl__kueue__subcmd__resume__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__resume,kwl)
                cmd="kubectl__kueue__subcmd__resume__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__resume,localqueue)
                cmd="kubectl__kueue__subcmd__resume__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__resume,lq)
                cmd="kubectl__kueue__subcmd__resume__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__resume,workload)
                cmd="kubectl__kueue__subcmd__resume__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__resume__subcmd__help,clusterqueue)
                cmd="kubectl__kueue__subcmd__resume__subcmd__help__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__resume__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__resume__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__resume__subcmd__help,localqueue)
                cmd="kubectl__kueue__subcmd__resume__subcmd__help__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__resume__subcmd__help,workload)
                cmd="kubectl__kueue__subcmd__resume__subcmd__help__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__stop,clusterqueue)
                cmd="kubectl__kueue__subcmd__stop__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__stop,cq)
                cmd="kubectl__kueue__subcmd__stop__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__stop,help)
                cmd="kubectl__kueue__subcmd__stop__subcmd__help"
                ;;
            kubectl__kueue__subcmd__stop,kueueworkload)
                cmd="kubectl__kueue__subcmd__stop__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__stop,kwl)
                cmd="kubectl__kueue__subcmd__stop__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__stop,localqueue)
                cmd="kubectl__kueue__subcmd__stop__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__stop,lq)
                cmd="kubectl__kueue__subcmd__stop__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__stop,workload)
                cmd="kubectl__kueue__subcmd__stop__subcmd__workload"
                ;;
            kubectl__kueue__subcmd__stop__subcmd__help,clusterqueue)
                cmd="kubectl__kueue__subcmd__stop__subcmd__help__subcmd__clusterqueue"
                ;;
            kubectl__kueue__subcmd__stop__subcmd__help,help)
                cmd="kubectl__kueue__subcmd__stop__subcmd__help__subcmd__help"
                ;;
            kubectl__kueue__subcmd__stop__subcmd__help,localqueue)
                cmd="kubectl__kueue__subcmd__stop__subcmd__help__subcmd__localqueue"
                ;;
            kubectl__kueue__subcmd__stop__subcmd__help,workload)
                cmd="kubectl__kueue__subcmd__stop__subcmd__help__subcmd__workload"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        kubectl__kueue)
            opts="-n -v -h -V --kubeconfig --context --namespace --color --verbose --help --version simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd____complete)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__completion)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help bash zsh fish"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help clusterqueue cq localqueue lq resourceflavor rf workloadpriorityclass wpc help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__clusterqueue)
            opts="-o -n -v -h --cohort --queuing-strategy --namespace-selector --reclaim-within-cohort --preemption-within-cluster-queue --nominal-quota --borrowing-limit --lending-limit --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cohort)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queuing-strategy)
                    COMPREPLY=($(compgen -W "BestEffortFIFO StrictFIFO" -- "${cur}"))
                    return 0
                    ;;
                --namespace-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reclaim-within-cohort)
                    COMPREPLY=($(compgen -W "Never LowerPriority Any" -- "${cur}"))
                    return 0
                    ;;
                --preemption-within-cluster-queue)
                    COMPREPLY=($(compgen -W "Never LowerPriority LowerOrNewerEqualPriority" -- "${cur}"))
                    return 0
                    ;;
                --nominal-quota)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --borrowing-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lending-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help)
            opts="clusterqueue localqueue resourceflavor workloadpriorityclass help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help__subcmd__resourceflavor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__help__subcmd__workloadpriorityclass)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__localqueue)
            opts="-c -i -o -n -v -h --clusterqueue --ignore-unknown-cq --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --clusterqueue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__resourceflavor)
            opts="-o -n -v -h --node-labels --node-taints --tolerations --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --node-labels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-taints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__create__subcmd__workloadpriorityclass)
            opts="-o -n -v -h --value --description --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --description)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__delete)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help workload kwl kueueworkload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__delete__subcmd__help)
            opts="workload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__delete__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__delete__subcmd__help__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__delete__subcmd__workload)
            opts="-y -A -n -v -h --yes --all --all-namespaces --dry-run --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__explain)
            opts="-f -o -n -v -h --filename --output --strict-namespace-selector --now --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help)
            opts="simulate explain version run-controller install uninstall submit status create list stop resume delete init history completion __complete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd____complete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__completion)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__create)
            opts="clusterqueue localqueue resourceflavor workloadpriorityclass"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__create__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__create__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__create__subcmd__resourceflavor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__create__subcmd__workloadpriorityclass)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__delete)
            opts="workload"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__delete__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__history)
            opts="export generate"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__history__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__history__subcmd__generate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__install)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__list)
            opts="clusterqueue localqueue workload resourceflavor"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__list__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__list__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__list__subcmd__resourceflavor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__list__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__resume)
            opts="clusterqueue localqueue workload"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__resume__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__resume__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__resume__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__run__subcmd__controller)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__simulate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__stop)
            opts="clusterqueue localqueue workload"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__stop__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__stop__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__stop__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__submit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__uninstall)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__help__subcmd__version)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help export generate help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__export)
            opts="-o -A -n -v -h --output --since --all-namespaces --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__generate)
            opts="-o -n -v -h --output --seed --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__help)
            opts="export generate help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__help__subcmd__generate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__history__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__init)
            opts="-y -n -v -h --non-interactive --gpu-types --teams --quota --cpu --memory --cohort --borrowing-limit --priorities --queue-name --gpu-resource --output-file --apply --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu-types)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --teams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quota)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memory)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cohort)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --borrowing-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --priorities)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__install)
            opts="-n -v -h --print --image --replicas --without-controller --skip-crds --webhook-url --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --webhook-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help clusterqueue cq clusterqueues localqueue lq localqueues workload kwl workloads kueueworkload kueueworkloads resourceflavor rf resourceflavors help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__clusterqueue)
            opts="-l -o -n -v -h --selector --active --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --active)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help)
            opts="clusterqueue localqueue workload resourceflavor help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help__subcmd__resourceflavor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__help__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__localqueue)
            opts="-c -l -A -o -n -v -h --clusterqueue --selector --all-namespaces --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --clusterqueue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__resourceflavor)
            opts="-l -o -n -v -h --selector --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__list__subcmd__workload)
            opts="-c -q -l -A -o -n -v -h --clusterqueue --localqueue --status --for --selector --all-namespaces --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --clusterqueue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --localqueue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -q)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --status)
                    COMPREPLY=($(compgen -W "all pending quotareserved admitted finished" -- "${cur}"))
                    return 0
                    ;;
                --for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help clusterqueue cq localqueue lq workload kwl kueueworkload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__clusterqueue)
            opts="-o -n -v -h --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__help)
            opts="clusterqueue localqueue workload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__help__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__help__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__help__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__localqueue)
            opts="-o -n -v -h --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__resume__subcmd__workload)
            opts="-o -n -v -h --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__run__subcmd__controller)
            opts="-n -v -h --config --leader-elect --force --metrics-bind-address --metrics-insecure --metrics-cert-dir --health-probe-bind-address --strict-namespace-selector --webhook-port --visibility-bind-address --visibility-cert-dir --max-concurrent-writes --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --leader-elect)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --metrics-bind-address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-cert-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --health-probe-bind-address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --webhook-port)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --visibility-bind-address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --visibility-cert-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-concurrent-writes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__simulate)
            opts="-f -o -n -v -h --filename --live --set --add --remove --output --no-headers --now --strict-namespace-selector --api-version --trace --compare --plot --forecast-accuracy --resource --top --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --add)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --remove)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api-version)
                    COMPREPLY=($(compgen -W "v1beta1 v1beta2" -- "${cur}"))
                    return 0
                    ;;
                --trace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --plot)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --top)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__status)
            opts="-A -w -o -n -v -h --all-namespaces --all --watch --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop)
            opts="-n -v -h --kubeconfig --context --namespace --color --verbose --help clusterqueue cq localqueue lq workload kwl kueueworkload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__clusterqueue)
            opts="-o -n -v -h --keep-already-running --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__help)
            opts="clusterqueue localqueue workload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__help__subcmd__clusterqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__help__subcmd__localqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__help__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__localqueue)
            opts="-o -n -v -h --keep-already-running --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__stop__subcmd__workload)
            opts="-o -n -v -h --dry-run --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dry-run)
                    COMPREPLY=($(compgen -W "none client server" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__submit)
            opts="-f -q -p -o -n -v -h --filename --queue --priority --image --name --gpus --gpu-resource --cpu --memory --parallelism --completions --wait --dry-run --timeout --output --no-headers --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -q)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --priority)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -p)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memory)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --parallelism)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --completions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wait)
                    COMPREPLY=($(compgen -W "admitted running finished" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__uninstall)
            opts="-n -v -h --crds --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__subcmd__kueue__subcmd__version)
            opts="-n -v -h --short --client --kubeconfig --context --namespace --color --verbose --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _kubectl__kueue -o nosort -o bashdefault -o default kubectl-kueue
else
    complete -F _kubectl__kueue -o bashdefault -o default kubectl-kueue
fi
