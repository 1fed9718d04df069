#!/usr/bin/env bash
# Runs the fxlens CLI over every corpus input and writes what each verb prints into OUT, one
# file per (input, command), with wall-clock times masked. Two snapshots taken from two builds
# are compared with `diff -r`: a refactoring must leave them identical, and an intended change
# shows up as exactly the lines it meant to change.
# Usage: tests/tools/cli_snapshot.sh FXLENS_BINARY CORPUS_DIR OUT_DIR
set -uo pipefail
bin=$(realpath "$1"); corpus=$(realpath "$2"); out=$3
rm -rf "$out"; mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Masks what changes from run to run: wall times and temporary paths.
mask() {
    python3 -c '
import json, sys
text = sys.stdin.read()
try:
    doc = json.loads(text)
except ValueError:
    sys.stdout.write(text)
    sys.exit(0)
def strip(v):  # per-node timings change order from run to run
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "slowest"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
json.dump(strip(doc), sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")' |
    sed -E -e "s#$work#WORK#g" -e "s#$corpus#CORPUS#g" \
        -e 's/("(wall|time|elapsed|seconds)[a-z_]*(_s|_ms|_seconds)?": *)[0-9.eE+-]+/\1T/g' \
        -e 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/T/g' -e '/^slowest nodes:/d'
}
# snap NAME CMD...: runs CMD, keeps stdout, stderr and the exit code.
snap() {
    local name=$1; shift
    (cd "$work" && "$@") >"$out/$name.out" 2>"$out/$name.err"
    echo "exit $?" >>"$out/$name.err"
    local file
    for file in "$out/$name.out" "$out/$name.err"; do mask <"$file" >"$file.m" && mv "$file.m" "$file"; done
}

inputs=()
for f in "$corpus"/pytorch/*.code.py "$corpus"/pytorch/*.graph.txt "$corpus"/fx/*.txt \
         "$corpus"/tlparse/*.log "$corpus"/tlparse/*.txt "$corpus"/tlparse/*/; do
    [ -e "$f" ] && inputs+=("${f%/}")
done

snap passes_list "$bin" passes list
snap passes_list_json "$bin" passes list --json
for f in "${inputs[@]}"; do
    n=$(basename "$f")
    snap "$n.info" "$bin" info "$f"
    snap "$n.info_json" "$bin" info "$f" --json
    snap "$n.info_allops" "$bin" info "$f" --all-ops
    case "$n" in
        *.log|*.txt) [ -f "$f" ] && [[ "$n" == *.log ]] && continue ;;
    esac
    [ -d "$f" ] && continue
    snap "$n.mem" "$bin" mem "$f"
    snap "$n.mem_json" "$bin" mem "$f" --json
    snap "$n.mem_csv" "$bin" mem "$f" --csv -
    snap "$n.convert_json" "$bin" convert "$f" --to json -o "$work/$n.json"
    [ -f "$work/$n.json" ] && cp "$work/$n.json" "$out/$n.converted.json"
    snap "$n.convert_py" "$bin" convert "$f" --to py -o "$work/$n.conv.py"
    [ -f "$work/$n.conv.py" ] && cp "$work/$n.conv.py" "$out/$n.converted.py"
done

# Passes, diffs and runs on the corpus joint graphs.
for f in "$corpus"/pytorch/*.joint.code.py; do
    n=$(basename "$f" .joint.code.py)
    dir=$(dirname "$f")
    inputs_st="$dir/$n.inputs.safetensors"
    consts=()
    [ -f "$dir/$n.joint.constants.safetensors" ] && consts=(--constants "$dir/$n.joint.constants.safetensors")
    for p in 'remove_detach,sac(policy=alternate_mm),remat,dce' 'dce,cse' 'partition(mode=mincut)' \
             'partition(mode=save_all)' 'remove_detach,sac(policy=save_list),partition(mode=tagged)'; do
        tag=$(echo "$p" | tr -c 'a-zA-Z0-9_\n' '_')
        rm -rf "$work/steps"
        snap "$n.passes.$tag" "$bin" passes run "$f" --pipeline "$p" --out "$work/steps"
        snap "$n.passes_json.$tag" "$bin" passes run "$f" --pipeline "$p" --json
        if [ -d "$work/steps" ]; then
            for s in "$work/steps"/*; do
                b=$(basename "$s")
                case "$b" in *.py|*.safetensors) cp "$s" "$out/$n.steps.$tag.$b" ;;
                             *) mask <"$s" >"$out/$n.steps.$tag.$b" ;; esac
            done
            last=$(ls "$work/steps"/[0-9]*.py | grep -v forward | grep -v backward | tail -1)
            [ -n "$last" ] && snap "$n.diff.$tag" "$bin" diff "$f" "$last"
            [ -n "$last" ] && snap "$n.diffjson.$tag" "$bin" diff "$f" "$last" --json
            [ -n "$last" ] && snap "$n.memstep.$tag" "$bin" mem "$last"
        fi
    done
    if [ -f "$inputs_st" ]; then
        snap "$n.run" "$bin" run "$f" --inputs "$inputs_st" "${consts[@]}" --out "$work/$n.out.safetensors" --force
        [ -f "$work/$n.out.safetensors" ] && sha256sum <"$work/$n.out.safetensors" >"$out/$n.run.sha256"
        snap "$n.run_json" "$bin" run "$f" --inputs "$inputs_st" "${consts[@]}" --json
        snap "$n.check_expected" "$bin" check "$f" "$dir/$n.outputs.safetensors" --inputs "$inputs_st"
    fi
done
echo "snapshot: $(ls "$out" | wc -l) files in $out"
