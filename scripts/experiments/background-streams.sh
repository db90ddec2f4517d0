# Sourced by the experiments: N playing streams in the sandbox, as bench/run
# starts them (one app each, spread over null sinks of 100), and the wait
# until every one runs (linked and scheduled).
#
#   play_background_streams FD COUNT   FD: pw-policy-load's stdin
play_background_streams() {
    local fd=$1 count=$2 sink i deadline
    for ((sink = 0; sink * 100 < count; sink++)); do
        echo "sink bench-$sink priority.session=10 priority.driver=10" >&"$fd"
    done
    for ((i = 0; i < count; i++)); do
        echo "play bg-$i application.name=bench-app-$i application.process.id=$((2000000 + i)) target.object=bench-$((i / 100))" >&"$fd"
        if (( i % 25 == 24 )); then sleep 0.3; fi
    done
    deadline=$((SECONDS + 60 + count / 2))
    until (( $(pw-dump 2>/dev/null | python3 -c '
import json, sys
print(sum(1 for o in json.load(sys.stdin) if o.get("type") == "PipeWire:Interface:Node"
          and (o.get("info") or {}).get("props", {}).get("node.name", "").startswith("pw-policy-load.")
          and (o.get("info") or {}).get("state") == "running"))') >= count )); do
        (( SECONDS < deadline )) || { echo "the $count streams did not all start" >&2; return 1; }
        sleep 0.5
    done
}
