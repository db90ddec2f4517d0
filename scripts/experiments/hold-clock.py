#!/usr/bin/env python3
"""hold-clock — does a hold stop the client's clock? (issue 14, item 4)

Measures, for each client × mechanism, on a fresh private sandbox each
(scripts/pw-sandbox start --pulse), how far the client's playback position
moves while its stream is held, and whether it plays on after the hold is
undone. Runs on whichever PipeWire stack is installed; findings in
docs/HOLDS.md.

    scripts/experiments/hold-clock.py [--clients LIST] [--mechanisms LIST]
                                      [--hold SECONDS] [--json FILE]

Clients (position source):
  mpv-pw     mpv --ao=pipewire (node.always-process=true); time-pos over JSON IPC
  mpv-pulse  mpv --ao=pulse through pipewire-pulse; time-pos over JSON IPC
  pw-play    pw-play; the wav file's read offset (/proc/PID/fdinfo)
  paplay     paplay through pipewire-pulse; the wav file's read offset

Mechanisms (hold / undo):
  none          nothing (control: the position must run on)
  agent         Props volume 0, destroy its links and every relink (what
                the agent does today) / relink to speakers, volume 1
  suspend       node command Suspend / node command Start
  pause         node command Pause / node command Start
  agent+suspend agent's hold, then Suspend; during the hold, Suspend again
                whenever the node is not `suspended` (level-triggered, as
                the agent would) / relink, volume 1 (no Start: linking
                starts it)
  agent+pause   agent's hold, then Pause / Start, relink, volume 1
  park          volume 0, links moved to a "parking" null sink that does not
                drive (node.driver=false; 1.x only) / back to speakers, volume 1
  park-driver   the same with a parking null sink that drives (a plain one)

--disturb does one thing halfway through each hold, to see what undoes it:
  default-change  the default sink changes to "headphones" (WirePlumber
                  relinks streams that follow the default)
  user-toggle     the user pauses and plays the player (mpv only: IPC)
  start           a node command Start from another client

For each run it prints and records: the position's progress before, during
(from 0.5 s into the hold: buffers already queued may drain first) and after
the hold (seconds of media per second), the stream node's state during the
hold, how many links WirePlumber (re)created during it, whether audio
reached the speakers after the undo (RMS of the speakers' monitor), and
whether the client is still alive.
"""
import argparse
import json
import math
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SANDBOX = os.path.join(ROOT, "scripts", "pw-sandbox")
BYTES_PER_SECOND = 48000 * 2 * 2  # the generated wav: 48 kHz, stereo, s16


def run(*args, check=False, timeout=10):
    return subprocess.run(args, capture_output=True, text=True, check=check, timeout=timeout)


def make_wav(path, seconds=600):
    if os.path.exists(path) and os.path.getsize(path) > seconds * BYTES_PER_SECOND:
        return
    second = b"".join(struct.pack("<hh", v, v) for v in
                      (int(3000 * math.sin(2 * math.pi * 440 * i / 48000)) for i in range(48000)))
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(48000)
        for _ in range(seconds):
            w.writeframes(second)


class Sandbox:
    def __init__(self):
        out = run(SANDBOX, "start", "--pulse", check=True, timeout=60).stdout
        self.env = dict(os.environ)
        for line in out.splitlines():
            m = re.match(r"export ([A-Z_]+)=(.*)", line)
            if m:
                # printf %q quoting: only '\,' occurs (the D-Bus address).
                self.env[m.group(1)] = m.group(2).replace("\\,", ",")
        self.dir = self.env["PW_SANDBOX_DIR"]

    def cmd(self, *args, timeout=10):
        return subprocess.run(args, capture_output=True, text=True, env=self.env, timeout=timeout)

    def dump(self):
        text = self.cmd("pw-dump").stdout or "[]"
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            # pw-dump 1.4.2 prints a param it has no name for as a bare
            # `[ ]` inside an object (seen on a sink once a pulse client
            # played on it): drop those entries.
            try:
                return json.loads(re.sub(r",\s*\[\s*\]", "", text))
            except json.JSONDecodeError:
                return []

    def stop(self):
        run(SANDBOX, "stop", self.dir, timeout=30)


class Graph:
    def __init__(self, objects):
        self.nodes = {o["id"]: o for o in objects if o["type"] == "PipeWire:Interface:Node"}
        self.ports = [o for o in objects if o["type"] == "PipeWire:Interface:Port"]
        self.links = [o for o in objects if o["type"] == "PipeWire:Interface:Link"]

    def node_named(self, name):
        for id, n in self.nodes.items():
            if n["info"]["props"].get("node.name") == name:
                return id
        return None

    def streams(self):
        return [id for id, n in self.nodes.items()
                if n["info"]["props"].get("media.class") == "Stream/Output/Audio"]

    def links_of(self, node):
        return [l for l in self.links
                if node in (l["info"]["output-node-id"], l["info"]["input-node-id"])]

    def state(self, node):
        n = self.nodes.get(node)
        return n["info"]["state"] if n else "gone"

    def port_pairs(self, output, input):
        def ports(node, direction, monitor=False):
            return [p for p in self.ports if p["info"]["props"].get("node.id") == node
                    and p["info"]["direction"] == direction
                    and (p["info"]["props"].get("port.monitor") == "true") == monitor]
        outs, ins = ports(output, "output"), ports(input, "input")
        pairs = []
        for o in outs:
            ch = o["info"]["props"].get("audio.channel")
            match = [i for i in ins if i["info"]["props"].get("audio.channel") == ch] or ins[:1]
            pairs += [(o["id"], m["id"]) for m in match[:1]]
        return pairs


class Client:
    def __init__(self, sb, kind, wav, workdir):
        self.sb, self.kind, self.wav = sb, kind, wav
        self.sock = os.path.join(workdir, f"{kind}.sock")
        self.log = open(os.path.join(workdir, f"{kind}.log"), "w")
        if kind.startswith("mpv"):
            ao = "pipewire" if kind == "mpv-pw" else "pulse"
            args = ["mpv", "--no-config", "--no-video", "--load-scripts=no", f"--ao={ao}",
                    f"--input-ipc-server={self.sock}", wav]
        elif kind == "pw-play":
            args = ["pw-play", "--media-role", "Music", wav]
        elif kind == "paplay":
            args = ["paplay", wav]
        else:
            raise SystemExit(f"unknown client {kind}")
        self.proc = subprocess.Popen(args, env=sb.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self):
        return self.proc.poll() is None

    def position(self):
        """Media seconds played (mpv) or read (file offset), or None."""
        if self.kind.startswith("mpv"):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.settimeout(1)
                    s.connect(self.sock)
                    s.sendall(b'{"command":["get_property","time-pos"]}\n')
                    data = b""
                    while b"\n" not in data:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                for line in data.splitlines():
                    reply = json.loads(line)
                    if "error" in reply:
                        return reply.get("data") if reply["error"] == "success" else None
            except (OSError, ValueError):
                return None
            return None
        fd_dir = f"/proc/{self.proc.pid}/fd"
        try:
            for fd in os.listdir(fd_dir):
                if os.path.realpath(os.path.join(fd_dir, fd)) == os.path.realpath(self.wav):
                    with open(f"/proc/{self.proc.pid}/fdinfo/{fd}") as f:
                        pos = int(re.search(r"pos:\s+(\d+)", f.read()).group(1))
                    return (pos - 44) / BYTES_PER_SECOND
        except (OSError, AttributeError):
            return None
        return None

    def set_pause(self, value):
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(1)
                s.connect(self.sock)
                s.sendall(json.dumps({"command": ["set_property", "pause", value]}).encode() + b"\n")
                s.recv(4096)
        except OSError:
            pass

    def stop(self):
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def find_stream(sb, before, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        g = Graph(sb.dump())
        new = [s for s in g.streams() if s not in before]
        if new and g.links_of(new[0]) and g.state(new[0]) == "running":
            return new[0]
        time.sleep(0.2)
    return None


def rate(client, seconds):
    a = client.position()
    time.sleep(seconds)
    b = client.position()
    if a is None or b is None:
        return None
    return (b - a) / seconds


def speakers_rms(sb, seconds=1.0):
    """RMS of what the speakers play (their monitor), 0..1."""
    with tempfile.NamedTemporaryFile(suffix=".wav") as f:
        proc = subprocess.Popen(["pw-record", "--target", "speakers", "-P", "{ stream.capture.sink=true }",
                                 "--format", "s16", "--rate", "48000", "--channels", "2", f.name],
                                env=sb.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(seconds + 0.5)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
        try:
            with wave.open(f.name) as w:
                frames = w.readframes(w.getnframes())
        except (wave.Error, EOFError):
            return None
    # The first half second: the recorder's own start.
    samples = struct.unpack(f"<{len(frames) // 2}h", frames)[48000:]
    if not samples:
        return 0.0
    return math.sqrt(sum(s * s for s in samples) / len(samples)) / 32768


class Mechanism:
    """hold() then keep() every 0.1 s during the hold, then undo()."""

    def __init__(self, name, sb, stream, workdir):
        self.name, self.sb, self.stream, self.workdir = name, sb, stream, workdir
        self.relinks = 0
        self.resuspends = 0
        self.parking = None
        self.sink = Graph(sb.dump()).node_named("speakers")

    def command(self, cmd):
        r = self.sb.cmd("pw-cli", "send-command", str(self.stream), cmd, "{}")
        if r.returncode != 0:
            print(f"    pw-cli send-command {cmd}: {r.stderr.strip()}", file=sys.stderr)

    def volume(self, v):
        self.sb.cmd("pw-cli", "set-param", str(self.stream), "Props", f"{{ volume: {v} }}")

    def unlink(self, count_relinks):
        g = Graph(self.sb.dump())
        for l in g.links_of(self.stream):
            if self.parking is not None and self.parking in (l["info"]["input-node-id"],):
                continue
            self.sb.cmd("pw-cli", "destroy", str(l["id"]))
            if count_relinks:
                self.relinks += 1

    def link_to(self, target):
        g = Graph(self.sb.dump())
        for out, inp in g.port_pairs(self.stream, target):
            self.sb.cmd("pw-cli", "create-link", str(self.stream), str(out), str(target), str(inp),
                        "{ object.linger=true }")

    def create_parking(self, driver):
        extra = "" if driver else "node.driver=false"
        self.sb.cmd("pw-cli", "create-node", "adapter",
                    "{ factory.name=support.null-audio-sink node.name=parking media.class=Audio/Sink "
                    f"audio.position=[ FL FR ] object.linger=true priority.session=0 priority.driver=0 {extra} }}")
        for _ in range(50):
            self.parking = Graph(self.sb.dump()).node_named("parking")
            if self.parking is not None:
                return
            time.sleep(0.1)

    def hold(self):
        n = self.name
        if n == "none":
            return
        if n in ("agent", "agent+suspend", "agent+pause", "park", "park-driver"):
            self.volume(0.0)
        if n.startswith("park"):
            self.create_parking(driver=n == "park-driver")
            self.unlink(False)
            self.link_to(self.parking)
        elif n.startswith("agent"):
            self.unlink(False)
        if n.endswith("suspend"):
            self.command("Suspend")
        if n.endswith("pause"):
            self.command("Pause")

    def keep(self):
        if self.name.startswith("agent") or self.name.startswith("park"):
            self.unlink(True)
        if self.name == "agent+suspend" and Graph(self.sb.dump()).state(self.stream) not in ("suspended", "gone"):
            self.command("Suspend")
            self.resuspends += 1

    def undo(self):
        n = self.name
        if n == "none":
            return
        if n.startswith("park"):
            self.unlink(False)
            self.sb.cmd("pw-cli", "destroy", str(self.parking))
            self.parking = None
        if n in ("suspend", "pause", "agent+pause"):
            self.command("Start")
        if n.startswith("agent") or n.startswith("park"):
            if not Graph(self.sb.dump()).links_of(self.stream):
                self.link_to(self.sink)
            self.volume(1.0)


def disturb(kind, sb, client, stream):
    if kind == "default-change":
        sb.cmd("pw-metadata", "0", "default.configured.audio.sink", '{ "name": "headphones" }', "Spa:String:JSON")
    elif kind == "user-toggle" and client.kind.startswith("mpv"):
        client.set_pause(True)
        time.sleep(0.3)
        client.set_pause(False)
    elif kind == "start":
        sb.cmd("pw-cli", "send-command", str(stream), "Start", "{}")


def installed_stack():
    return run(os.path.join(ROOT, "scripts", "install-deps"), "--which").stdout.strip()


def one_run(client_kind, mechanism, hold_seconds, wav, workdir, disturbance="none"):
    # The stack is shared: when it is switched during a run, the run is void.
    stack_before = installed_stack()
    sb = Sandbox()
    result = {"client": client_kind, "mechanism": mechanism}
    daemon = re.search(r'version: "([^"]+)"', sb.cmd("pw-cli", "info", "0").stdout)
    result["daemon"] = daemon.group(1) if daemon else None
    client = None
    try:
        before = Graph(sb.dump()).streams()
        client = Client(sb, client_kind, wav, workdir)
        stream = find_stream(sb, before)
        if stream is None:
            result["error"] = "no running stream"
            return result
        props = Graph(sb.dump()).nodes[stream]["info"]["props"]
        result["always_process"] = props.get("node.always-process")
        time.sleep(1.5)
        result["before"] = rate(client, 2.0)
        m = Mechanism(mechanism, sb, stream, workdir)
        start = time.time()
        p0 = client.position()
        m.hold()
        states = set()
        p_settled = None
        disturbed = disturbance == "none"
        while time.time() - start < hold_seconds:
            if not disturbed and time.time() - start >= hold_seconds / 2:
                disturb(disturbance, sb, client, stream)
                disturbed = True
            m.keep()
            g = Graph(sb.dump())
            states.add(g.state(stream))
            if p_settled is None and time.time() - start >= 0.5:
                p_settled = client.position()
                t_settled = time.time()
            time.sleep(0.1)
        p1 = client.position()
        t1 = time.time()
        result["state_during"] = sorted(states)
        result["links_during"] = len(Graph(sb.dump()).links_of(stream))
        result["relinks"] = m.relinks
        result["resuspends"] = m.resuspends
        result["during_total"] = None if None in (p0, p1) else p1 - p0
        result["during"] = None if None in (p_settled, p1) else (p1 - p_settled) / (t1 - t_settled)
        result["alive_during"] = client.alive()
        m.undo()
        time.sleep(0.7)
        result["after"] = rate(client, 2.5)
        result["state_after"] = Graph(sb.dump()).state(stream)
        result["links_after"] = len(Graph(sb.dump()).links_of(stream))
        rms = speakers_rms(sb)
        result["audio_after"] = rms is not None and rms > 0.01
        result["alive_after"] = client.alive()
        log = open(client.log.name).read() if client.log else ""
        result["client_errors"] = [l for l in log.splitlines() if re.search(r"error|fail|xrun|underrun", l, re.I)][:3]
    finally:
        if client:
            client.stop()
        sb.stop()
        if installed_stack() != stack_before:
            result["error"] = f"the stack changed during the run (was {stack_before}): void"
    return result


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, list):
        return ",".join(map(str, v))
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", default="mpv-pw,mpv-pulse,pw-play,paplay")
    ap.add_argument("--mechanisms", default="none,agent,suspend,pause,agent+suspend,agent+pause,park,park-driver")
    ap.add_argument("--hold", type=float, default=5.0)
    ap.add_argument("--disturb", default="none", choices=["none", "default-change", "user-toggle", "start"])
    ap.add_argument("--json")
    args = ap.parse_args()
    stack = installed_stack()
    version = run("pw-cli", "--version").stdout.strip().splitlines()[-1]
    workdir = tempfile.mkdtemp(prefix="hold-clock.")
    wav = os.path.join(tempfile.gettempdir(), "hold-clock-tone.wav")
    make_wav(wav)
    print(f"# stack {stack} ({version}); hold {args.hold:.0f} s; disturbance {args.disturb}; "
          "rates are media seconds per second")
    cols = ["daemon", "client", "mechanism", "before", "during", "during_total", "state_during", "relinks", "resuspends",
            "links_during", "after", "audio_after", "state_after", "alive_after"]
    print("\t".join(cols), flush=True)
    results = []
    for c in args.clients.split(","):
        for m in args.mechanisms.split(","):
            r = one_run(c, m, args.hold, wav, workdir, args.disturb)
            r["stack"] = stack
            r["disturbance"] = args.disturb
            results.append(r)
            print("\t".join(fmt(r.get(k)) for k in cols) + (f"\t{r['error']}" if "error" in r else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"stack": stack, "version": version, "hold": args.hold, "disturbance": args.disturb,
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
