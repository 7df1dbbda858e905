#!/usr/bin/env python3
"""Plays the explorer as a person would, in a headless Chromium already
showing it (scripts/clients.sh starts both): clicks a square, goes back and
forward, pastes a kifu, and checks after each step where the page is and
which moves and scores its board carries.

  explorer-clicks.py DEVTOOLS_PORT EXPECTED.json

EXPECTED.json maps each line the steps reach ("F5F6E6F4", "F5F6E6F4F3",
"F5D6C3") to its squares as `bookminer inspect` prints them: a sorted list
of "MOVE SCORE". Talks to Chromium over its DevTools protocol with the
standard library alone (a WebSocket client of a few lines); every wait is
for a condition, bounded by a timeout. Prints one line per step; exits 1 at
the first that fails.
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request

TIMEOUT = 30.0


class Page:
    """One page's DevTools connection: Runtime.evaluate and its answers."""

    def __init__(self, port):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=5))
                pages = [t for t in targets if t["type"] == "page"]
                if pages:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                sys.exit("no DevTools page to talk to")
            time.sleep(0.1)
        path = pages[0]["webSocketDebuggerUrl"].split(f":{port}", 1)[1]
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        self.buffer = self.buffer.split(b"\r\n\r\n", 1)[1]
        self.last_id = 0

    def _send(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        length = len(data)
        head = bytes([0x81]) + (bytes([0x80 | length]) if length < 126 else bytes([0x80 | 126]) + struct.pack(">H", length))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                sys.exit("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _receive(self):
        head = self._read(2)
        length = head[1] & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(8))[0]
        return json.loads(self._read(length))

    def evaluate(self, expression):
        self.last_id += 1
        self._send({"id": self.last_id, "method": "Runtime.evaluate",
                    "params": {"expression": expression, "returnByValue": True}})
        while True:
            message = self._receive()
            if message.get("id") == self.last_id:
                return message.get("result", {}).get("result", {}).get("value")

    def wait_for(self, line):
        """Waits until the page shows `line`, drawn; its squares."""
        squares = ("[...document.querySelectorAll('#board [data-move]')]"
                   ".map(e => e.dataset.move + ' ' + e.dataset.score).sort()")
        shown = ("(location.pathname === '/line/' + %s && document.querySelector('#kifu .here') !== null"
                 " && (%s === '' ? document.querySelector('#kifu .here').textContent === 'start'"
                 " : document.querySelector('#kifu .here').textContent === %s.slice(-2)))") % (
                     json.dumps(line), json.dumps(line), json.dumps(line))
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.evaluate(shown):
                return self.evaluate(squares)
            time.sleep(0.05)
        return None


def main():
    port, expected = int(sys.argv[1]), json.load(open(sys.argv[2]))
    page = Page(port)
    steps = [
        ("the page as opened", None, "F5F6E6F4"),
        ("F3 clicked", "document.querySelector('#board [data-move=\"F3\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))", "F5F6E6F4F3"),
        ("back", "document.getElementById('back').click()", "F5F6E6F4"),
        ("forward", "document.getElementById('forward').click()", "F5F6E6F4F3"),
        ("f5d6c3 pasted", "document.getElementById('text').value = 'f5d6c3'; document.getElementById('jump').requestSubmit()", "F5D6C3"),
    ]
    for label, action, line in steps:
        if action:
            page.evaluate(action)
        got = page.wait_for(line)
        if got != expected[line]:
            print(f"{label}: expected /line/{line} with {expected[line]}, the page shows "
                  f"{page.evaluate('location.pathname')} with {got}")
            sys.exit(1)
        print(f"{label}: /line/{line}, {len(got)} moves as inspect prints them")


if __name__ == "__main__":
    main()
