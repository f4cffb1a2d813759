# kfsck.bash: bash completion for kfsck (installed by `make install` and the
# Debian package as share/bash-completion/completions/kfsck). Completes the
# command, each command's options (those its --help lists, checked by
# tests/e2e/test_completion.py), the fixed values of --decode and --format,
# a directory after -o/--output (a file for report's), and files and directories as PATHs. Options
# that take a free value (a group, a number, a duration) complete nothing.

# The options of one kfsck command, and which of them take a value.
_kfsck_options()
{
    case $1 in
    dump)     echo "--records --payload --decode --offset --from-offset --to-offset --schema-ids --include-damaged --show-secrets --max-bytes --max-batch-bytes --json --help" ;;
    verify)   echo "--schema-ids --max-batch-bytes --json --help" ;;
    offsets)  echo "--group --topic --history --as-of --now --offsets-retention-minutes --connect --connect-topic --offsets-partitions --format --max-batch-bytes --json --help" ;;
    groups)   echo "--group --offsets-partitions --max-batch-bytes --json --help" ;;
    repair)   echo "--salvage --force --max-batch-bytes --json -o --output --help" ;;
    merge)    echo "--force --max-batch-bytes --json -o --output --help" ;;
    scan)     echo "--jobs --max-batch-bytes --json --format --help" ;;
    stats)    echo "--bucket --by-partition --max-batch-bytes --json --sink-partition-duration --flush-size --rotate-interval --part-size --rotate-schedule-interval --catch-up-rate --from-offset --from-time --from-group --tasks --heap --help" ;;
    txns)     echo "--hanging-ms --max-batch-bytes --json --help" ;;
    metadata) echo "--as-of-offset --show-secrets --max-batch-bytes --json --help" ;;
    compaction) echo "--now --min-cleanable-ratio --min-compaction-lag-ms --max-compaction-lag-ms --max-batch-bytes --verbose --json --help" ;;
    replicas) echo "--max-batch-bytes --json --help" ;;
    predict)  echo "--assume-unclean --config --recovery-threads --recovery-rate --now --max-batch-bytes --verbose --json --help" ;;
    remote)   echo "--storage --listing --stuck-after --now --max-batch-bytes --json --help" ;;
    report)   echo "-o --output --title --now --max-batch-bytes --json --help" ;;
    esac
}

# Options (of any command; of command $2 for those whose meaning differs)
# whose value is the next word.
_kfsck_takes_value()
{
    case $1 in
    --schema-ids) [ "$2" = verify ] && return 0 ;;  # dump --schema-ids takes none
    --offset|--to-offset) return 0 ;;
    --decode|--max-bytes|--max-batch-bytes|--group|--topic|--as-of|--connect-topic| \
    --offsets-partitions|--format|-o|--output|--jobs|--bucket|--sink-partition-duration| \
    --flush-size|--rotate-interval|--part-size|--rotate-schedule-interval|--catch-up-rate|--from-offset|--from-time|--from-group|--tasks|--heap|--hanging-ms| \
    --as-of-offset|--now|--offsets-retention-minutes) return 0 ;;
    --min-cleanable-ratio|--min-compaction-lag-ms|--max-compaction-lag-ms) return 0 ;;
    --config|--recovery-threads|--recovery-rate) return 0 ;;
    --storage|--listing|--stuck-after|--title) return 0 ;;
    esac
    return 1
}

_kfsck()
{
    local cur prev cmd
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="dump verify offsets groups repair merge scan stats txns metadata compaction replicas predict remote report"

    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}

    # --opt=value is one word in COMP_WORDS only when '=' is not a word
    # break; complete the value after it either way.
    local opt=$prev val=$cur pre=""
    if [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then
        opt=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $cur == --*=* ]]; then
        opt=${cur%%=*} val=${cur#*=} pre=${cur%%=*}=
    elif ! _kfsck_takes_value "$prev" "$cmd"; then
        opt=""
    fi

    case $opt in
    --decode)
        COMPREPLY=($(compgen -P "$pre" -W "auto none offsets txn connect metadata share remote" -- "$val"))
        return 0 ;;
    --schema-ids)
        COMPREPLY=($(compgen -P "$pre" -W "key value both" -- "$val"))
        return 0 ;;
    --format)
        case $cmd in
        offsets) COMPREPLY=($(compgen -P "$pre" -W "table json csv reset-csv" -- "$val")) ;;
        scan)    COMPREPLY=($(compgen -P "$pre" -W "text json prometheus" -- "$val")) ;;
        esac
        return 0 ;;
    --config|--listing)
        mapfile -t COMPREPLY < <(compgen -f -- "$val")
        compopt -o filenames 2>/dev/null
        return 0 ;;
    -o|--output|--storage)
        if [ "$cmd" = report ] && [ "$opt" != --storage ]; then  # report writes a file there
            mapfile -t COMPREPLY < <(compgen -f -- "$val")
        else
            mapfile -t COMPREPLY < <(compgen -d -- "$val")
        fi
        compopt -o filenames 2>/dev/null
        return 0 ;;
    "") ;;
    *)  return 0 ;;  # a free value: a number, a name, a duration
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_kfsck_options "$cmd")" -- "$cur"))
        return 0
    fi
    # A PATH: files and directories (readline marks directories with '/').
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
}

complete -F _kfsck kfsck kfsck-static
