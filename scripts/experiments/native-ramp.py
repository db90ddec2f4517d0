#!/usr/bin/env python3
"""native-ramp — what a PipeWire client does with Props volume ramps (issue 15)

Plays a 1 kHz tone with pw-play on a private sandbox (scripts/pw-sandbox),
records the speakers' monitor, sends the stream Props updates with
`pw-cli set-param` at fixed times, and prints the level heard at the sink
every time it changes (10 ms blocks, relative to the tone), so that what
the client's audioconvert does with `volumeRampTime` & co. can be read off.
Runs on whichever PipeWire stack is installed; findings in docs/POLICY.md,
"Fades".

    scripts/experiments/native-ramp.py [CASE…]

Cases (all by default):
  end        a ramp to 0.37 and one to 0.91: where does each end?
  overlap    a ramp to 0.13, and 0.2 s later (while it runs) one to 0.77,
             then a plain volume 0.5: is the second ramp taken, is it a jump?
  cubic      volumeRampScale cubic (2: pw-cli takes the number, not the
             name) from 1 to 0.2, then to 1
"""
import json
import math
import os
import struct
import subprocess
import sys
import time
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAMP = "volumeRampStepSamples: 32"
CASES = {
    "end": [(0.2, f"{{ volume: 0.37, volumeRampTime: 250, {RAMP} }}"),
            (1.2, f"{{ volume: 0.91, volumeRampTime: 250, {RAMP} }}")],
    "overlap": [(0.2, f"{{ volume: 0.13, volumeRampTime: 400, {RAMP} }}"),
                (0.4, f"{{ volume: 0.77, volumeRampTime: 300, {RAMP} }}"),
                (1.5, "{ volume: 0.5 }")],
    "cubic": [(0.2, f"{{ volume: 0.2, volumeRampTime: 250, {RAMP}, volumeRampScale: 2 }}"),
              (1.2, f"{{ volume: 1.0, volumeRampTime: 250, {RAMP}, volumeRampScale: 2 }}")],
}


def run(case, schedule):
    env = dict(os.environ)
    out = subprocess.run([f"{ROOT}/scripts/pw-sandbox", "start"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("export "):
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.strip("'\"")
    sandbox = env["PW_SANDBOX_DIR"]
    try:
        tone = f"{sandbox}/tone.wav"
        amplitude = 16000
        with wave.open(tone, "wb") as w:
            w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
            w.writeframes(b"".join(struct.pack("<hh", *(2 * [int(amplitude * math.sin(2 * math.pi * 1000 * i / 48000))]))
                                   for i in range(48000 * 4)))
        recording = f"{sandbox}/monitor.wav"
        recorder = subprocess.Popen(["pw-record", "--target", "speakers", "--format", "f32", "--rate", "48000",
                                     "--channels", "2", "-P", "{ stream.capture.sink=true }", recording], env=env)
        time.sleep(0.3)
        player = subprocess.Popen(["pw-play", "--target", "speakers", tone], env=env)
        time.sleep(0.8)
        dump = json.loads(subprocess.run(["pw-dump"], env=env, capture_output=True, text=True).stdout)
        node = next(o["id"] for o in dump if o["type"].endswith("Node")
                    and o["info"]["props"].get("application.name") == "pw-play")
        start = time.monotonic()
        for at, pod in schedule:
            time.sleep(max(0, at - (time.monotonic() - start)))
            subprocess.run(["pw-cli", "set-param", str(node), "Props", pod], env=env, capture_output=True, check=True)
            print(f"  {time.monotonic() - start:6.3f} s  sent {pod}")
        player.wait()
        recorder.send_signal(2)
        recorder.wait()
        data = open(recording, "rb").read()
        base = data.find(b"data") + 8
        count = (len(data) - base) // 4
        left = struct.unpack(f"<{count}f", data[base:base + count * 4])[0::2]
        full = amplitude / 32768
        levels = [max(abs(x) for x in left[i:i + 480]) / full for i in range(0, len(left) - 480, 480)]
        heard, last = [], None
        for index, level in enumerate(levels):
            if level > 0.01 and (last is None or abs(level - last) > 0.0005):
                heard.append(f"{index * 10}ms:{level:.4f}")
            last = level
        print(f"  heard (recording time: level): {' '.join(heard)}")
    finally:
        subprocess.run([f"{ROOT}/scripts/pw-sandbox", "stop", sandbox], env=env)


for case in sys.argv[1:] or CASES:
    print(f"{case}:")
    run(case, CASES[case])
