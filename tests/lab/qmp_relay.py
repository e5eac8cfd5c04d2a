#!/usr/bin/env python3
"""Send a lab guest's "MDF-QMP <json>" console lines to qemu's QMP socket.

usage: qmp_relay.py SERIAL_LOG QMP_SOCKET LOG
Follows SERIAL_LOG (the lab's runs/NAME/serial.log) until qemu's socket
goes away; each request line is sent once, in order, and the command and
qemu's answer are appended to LOG.  tests/lab/scenario.sh asks, then waits
for the effect inside the guest (balloon, memory hot-plug, virtio-mem).
"""
import json, os, socket, sys, time


def qmp_connect(path, deadline):
    while time.time() < deadline:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            f = s.makefile("rw")
            f.readline()  # greeting
            f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
            f.flush()
            f.readline()
            return s, f
        except OSError:
            time.sleep(0.5)
    return None, None


def answer(f):
    while True:
        line = f.readline()
        if not line:
            return "(socket closed)"
        msg = json.loads(line)
        if "event" not in msg:
            return line.strip()


def main():
    serial, sock, log = sys.argv[1:4]
    out = open(log, "a")
    s, f = qmp_connect(sock, time.time() + 600)
    if not f:
        out.write("no QMP socket\n")
        return
    pos = 0
    while True:
        try:
            with open(serial, "rb") as sf:
                sf.seek(pos)
                chunk = sf.read()
        except OSError:
            chunk = b""
        lines = chunk.split(b"\n")
        pos += len(chunk) - len(lines[-1])
        for raw in lines[:-1]:
            line = raw.decode("utf-8", "replace").strip()
            i = line.find("MDF-QMP ")
            if i < 0:
                continue
            cmd = line[i + 8:]
            try:
                f.write(json.dumps(json.loads(cmd)) + "\n")
                f.flush()
                out.write(f"> {cmd}\n< {answer(f)}\n")
            except (OSError, ValueError) as e:
                out.write(f"> {cmd}\n! {e}\n")
                if isinstance(e, OSError):
                    return
            out.flush()
        if not os.path.exists(sock):
            return
        time.sleep(0.3)


if __name__ == "__main__":
    main()
