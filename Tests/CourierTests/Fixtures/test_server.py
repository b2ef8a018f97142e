#!/usr/bin/env python3
"""A small httpbin-style HTTP/1.1 server for Courier's integration tests and demo.

Standard library only. Binds 127.0.0.1 on a free port (or --port N), prints
"PORT <n>" as the first line of stdout, then serves until stdin (when it is a
pipe) reaches end of file, the process that started it goes away, or it receives
SIGTERM/SIGINT. --no-stdin-watch turns the first two off, for running it by hand.

Routes (every route answers any method unless noted):
  /anything[/...]            echo {method, path, query, headers, unparsed_header_lines, body, json}
  /headers                   {"headers": {...}, "unparsed_header_lines": [...]}
                             (unparsed_header_lines: the lines after a malformed header line, which
                             Python's parser stops at; empty for well-formed requests)
  /status/<code>?body=KIND   that status; KIND: metadata | error | message | html | empty | json
                             (default: metadata for codes >= 400, json otherwise; 204/304 are always empty)
  /delay/<seconds>           echo after the delay (float, capped at 30 s)
  /bytes/<n>                 n bytes where byte i == i % 256 (application/octet-stream)
  /json/large?kb=N           a JSON document of about N KiB (default 64)
  /gzip[?expand_mb=N]        a gzip-encoded JSON body; with expand_mb, N MiB of zero bytes gzip-encoded
                             (a "zip bomb": about 1 KiB on the wire per MiB decompressed, N at most 4096)
  /response-headers?K=V      200 with the given response headers, JSON echo of them
  /redirect-to?url=U&status=302[&delay=S]   redirect to U (absolute or relative), after S seconds
  /relative-redirect[/...]?location=L[&status=302]
                             a redirect whose Location is L exactly as given (relative ones included);
                             without location, an echo as /anything gives (where such a redirect lands)
  /redirect/<n>              a same-host chain of n redirects ending at /anything
  /redirect-loop/<status>    a redirect with that status to itself, for ever
  /bearer[/<realm>]          200 {"authenticated":true,"token":T} when Authorization: Bearer T is the realm's
                             valid token, else 401 {"metadata":{"status":"401","desc":"token expired"}}
  /x-auth[/<realm>]          the same with the header x-auth-token: T (no scheme)
                             (both: ?challenge=basic adds WWW-Authenticate: Basic realm="courier" to the 401)
  /basic-auth/<user>/<password>
                             200 {"authenticated":true,"user":U,"body_length":N} for Authorization: Basic of user:password
                             (302 to U instead with ?then=U),
                             else 401 with WWW-Authenticate: Basic realm="courier" and
                             {"metadata":{"status":"401","desc":"credentials required"}}
  POST /auth/token[/<realm>] rotate: {"token": new}, the only valid token from now on
  GET  /auth/valid[/<realm>]?token=T   {"valid": bool}
  POST /auth/set[/<realm>]?token=T     make T the valid token
  GET  /auth/stats[/<realm>] {"token": current, "rotations": n}
  /counter/<key>/statuses?seq=503,503,200[&retry_after=S]
                             the Nth request for key gets the Nth entry of seq (the last repeats);
                             an entry may be "<status>@<delay seconds>"; body {"attempt": N, "status": code}
  GET  /counter/<key>        {"count": N}
  POST /reset                clear counters and auth state
  /stall[?key=K]             never answers (holds the socket at most 60 s or until the client closes it);
                             with a key, records it as "open", then "closed" when the client closes it
  GET /stall-state/<K>?until=open|closed&timeout=S
                             waits (at most S s, default 10) until stall K is in that state: {"state": current}
  /close-mid-body            promises Content-Length 1000, sends 10 bytes, closes the socket
  /drip[?length=N&stall_after=K]
                             declares Content-Length N (default 10 GiB; with length=none, no length)
                             and sends 1 KiB every 50 ms until N bytes, the client closes the
                             connection, or 60 s pass: a body that does not end soon by itself;
                             with stall_after=K, sends nothing more after K pieces (holds the socket)
  /events?count=N[&hold=1&per=K&retry=MS&cr=1]
                             text/event-stream: a comment, then N events "id: i", "event: tick",
                             "data: tick i" / "data: of N"; with hold=1 the body does not end
                             afterwards (the socket is held until the client closes it). A request
                             with Last-Event-ID: j starts at event j+1 (204 when j >= N); per=K
                             ends the body after K events; retry=MS sends "retry: MS" first; cr=1
                             ends lines with a lone CR
  /resumable/<key>?size=N&cuts=K1,K2&validator=etag|weak|date|none&changes=1
                             N bytes as /bytes/<n> does, with Accept-Ranges: bytes and the validator
                             (a strong ETag by default; weak: W/"..."; date: Last-Modified with a
                             later Date; changes=1: the ETag differs on every request, changes=once:
                             from the second request on). A request
                             with Range: bytes=S- and a matching If-Range gets 206 and bytes S..N-1.
                             The Nth request's body stops at byte Ki (counted from the body's
                             start) and the socket is closed, when cuts has an Nth entry (with
                             hold=1 the socket is held open instead, until the client closes it).
                             misbehave=short|offset|416 spoils the answer to a resuming request: a
                             206 of only 1000 bytes, a 206 starting a byte early, or a 416.
                             fail=N:S[,M:T] answers the Nth request with status S and a JSON
                             error body instead (logged like the others).
  GET  /resumable/<key>/log  [{"range": R, "if_range": I, "status": S}] for each request, in order
  POST /raw                  writes the request body to the socket verbatim as the whole response
                             (status line, headers, body: anything, however broken), then closes
  /reject-early[/<status>]   answers status (default 413) with metadata WITHOUT reading the request body,
                             then drains what the client still sends for up to 2 s and closes (as nginx does)
  /stats                     {"requests": total requests received, this one included}
  POST /multipart            parses a multipart/form-data body with the standard library's email
                             parser: {"parts": [{"name", "filename", "content_type", "size", "fnv1a"}]}
                             (fnv1a: the payload's 64-bit FNV-1a hash, as a decimal string)
                             in order; 400 when the body is not a well-formed form
"""

import argparse
import base64
import email.parser
import email.policy
import gzip
import json
import os
import select
import signal
import socket
import stat
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

BASIC_CHALLENGE = 'Basic realm="courier"'
MAX_DELAY = 30.0
MAX_STALL = 60.0
MAX_BYTES = 100 * 1024 * 1024
DEFAULT_TOKEN = "token-0"


class State:
    """Server-wide mutable state, guarded by one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.counters = {}
        self.tokens = {}
        self.rotations = {}
        self.resumable_logs = {}
        self.stalls = {}
        self.stall_changed = threading.Condition(self.lock)

    def set_stall(self, key, state):
        with self.lock:
            self.stalls[key] = state
            self.stall_changed.notify_all()

    def wait_for_stall(self, key, wanted, timeout):
        with self.lock:
            self.stall_changed.wait_for(lambda: self.stalls.get(key) == wanted, timeout)
            return self.stalls.get(key, "unknown")

    def count_request(self):
        with self.lock:
            self.requests += 1
            return self.requests

    def next_attempt(self, key):
        with self.lock:
            self.counters[key] = self.counters.get(key, 0) + 1
            return self.counters[key]

    def count_for(self, key):
        with self.lock:
            return self.counters.get(key, 0)

    def token(self, realm):
        with self.lock:
            return self.tokens.get(realm, DEFAULT_TOKEN)

    def set_token(self, realm, token):
        with self.lock:
            self.tokens[realm] = token

    def rotate(self, realm):
        with self.lock:
            n = self.rotations.get(realm, 0) + 1
            self.rotations[realm] = n
            token = "token-%d-%s" % (n, os.urandom(4).hex())
            self.tokens[realm] = token
            return token

    def rotation_count(self, realm):
        with self.lock:
            return self.rotations.get(realm, 0)

    def log_resumable(self, key, entry):
        with self.lock:
            self.resumable_logs.setdefault(key, []).append(entry)

    def resumable_log(self, key):
        with self.lock:
            return list(self.resumable_logs.get(key, []))

    def reset(self):
        with self.lock:
            self.resumable_logs.clear()
            self.counters.clear()
            self.tokens.clear()
            self.rotations.clear()


STATE = State()

STATUS_MESSAGES = {
    400: "bad request", 401: "token expired", 403: "forbidden", 404: "not found",
    408: "request timeout", 409: "conflict", 422: "unprocessable entity", 429: "too many requests",
    500: "internal server error", 502: "bad gateway", 503: "service unavailable", 504: "gateway timeout",
}


def message_for(code):
    return STATUS_MESSAGES.get(code, "status %d" % code)


def status_body(code, kind):
    """Returns (body bytes, content type) for /status/<code>."""
    msg = message_for(code)
    if kind == "metadata":
        return json_bytes({"metadata": {"status": str(code), "desc": msg}}), "application/json"
    if kind == "error":
        return json_bytes({"error": {"code": code, "message": msg}}), "application/json"
    if kind == "message":
        return json_bytes({"message": msg}), "application/json"
    if kind == "html":
        page = "<!DOCTYPE html><html><head><title>%d</title></head><body><h1>%d %s</h1></body></html>"
        return (page % (code, code, msg)).encode(), "text/html; charset=utf-8"
    if kind == "json":
        return json_bytes({"status": code}), "application/json"
    return b"", None


GZIP_OF_ZEROS = {}


def gzip_of_zeros(mib):
    """N MiB of zero bytes, gzip-compressed in pieces (never held whole), cached per size."""
    if mib not in GZIP_OF_ZEROS:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        piece = bytes(1 << 20)
        out = [compressor.compress(piece) for _ in range(mib)]
        out.append(compressor.flush())
        GZIP_OF_ZEROS[mib] = b"".join(out)
    return GZIP_OF_ZEROS[mib]


def json_bytes(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def large_document(kb):
    target = max(0, kb) * 1024
    items, size, i = [], 12, 0
    while size < target:
        item = {"id": i, "name": "item-%d" % i, "active": i % 2 == 0,
                "score": i * 1.5, "tags": ["alpha", "beta", "gamma"][: (i % 3) + 1]}
        items.append(item)
        size += len(json_bytes(item)) + 1
        i += 1
    return json_bytes({"count": len(items), "items": items})


def pattern_bytes(n):
    block = bytes(range(256))
    return (block * (n // 256 + 1))[:n]


def fnv1a64(data):
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def first(query, name, default=None):
    values = query.get(name)
    return values[0] if values else default


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "CourierTestServer/1.0"

    def log_message(self, fmt, *args):
        if os.environ.get("COURIER_TEST_SERVER_VERBOSE"):
            sys.stderr.write("test_server: " + (fmt % args) + "\n")

    # Every method goes through one dispatcher.
    def do_GET(self): self.dispatch()
    def do_POST(self): self.dispatch()
    def do_PUT(self): self.dispatch()
    def do_PATCH(self): self.dispatch()
    def do_DELETE(self): self.dispatch()
    def do_HEAD(self): self.dispatch()
    def do_OPTIONS(self): self.dispatch()
    def do_TRACE(self): self.dispatch()

    # ---- plumbing -------------------------------------------------------

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0] or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, code, body=b"", content_type="application/json", headers=None):
        self.send_response(code)
        no_body = code in (204, 304) or code < 200
        if content_type and not no_body:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if not no_body:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and not no_body and body:
            self.wfile.write(body)

    def send_json(self, code, value, headers=None):
        self.send(code, json_bytes(value), "application/json", headers)

    def header_dict(self):
        result = {}
        for name, value in self.headers.items():
            result[name] = result[name] + ", " + value if name in result else value
        return result

    def unparsed_header_lines(self):
        """Header lines Python's parser gave up on: after a line without a colon (for example a
        header name carrying CR LF), it treats every later line as body, so they are reported here."""
        payload = self.headers.get_payload()
        text = payload if isinstance(payload, str) else ""
        return [line for line in text.splitlines() if line.strip()]

    def echo(self, parts, body, extra=None):
        text = body.decode("utf-8", errors="replace")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        value = {"method": self.command, "path": parts.path,
                 "query": {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query, keep_blank_values=True).items()},
                 "headers": self.header_dict(), "unparsed_header_lines": self.unparsed_header_lines(),
                 "body": text, "json": parsed}
        value.update(extra or {})
        self.send_json(200, value)

    # ---- routing --------------------------------------------------------

    def dispatch(self):
        STATE.count_request()
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        segments = [s for s in parts.path.split("/") if s]
        head = segments[0] if segments else ""
        if head == "reject-early":
            # Answers before reading the request body, then closes (nginx's 413 for a body over
            # client_max_body_size): the client is still sending when the answer arrives.
            return self.reject_early(int(segments[1]) if len(segments) > 1 else 413)
        body = self.read_body()
        try:
            route = ROUTES.get(head)
            if route is None:
                self.send_json(404, {"metadata": {"status": "404", "desc": "no route for " + parts.path}})
            else:
                route(self, parts, query, segments, body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except (ValueError, IndexError) as error:
            self.send_json(400, {"error": {"code": 400, "message": "bad request: %s" % error}})

    def reject_early(self, code):
        self.close_connection = True
        self.send_json(code, {"metadata": {"status": str(code), "desc": "request body too large"}},
                       {"Connection": "close"})
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            # Drain (and drop) what the client still sends for a moment, so that the answer is not
            # lost to a reset before the client has read it.
            self.connection.settimeout(2.0)
            while self.connection.recv(65536):
                pass
        except OSError:
            pass

    def route_anything(self, parts, query, segments, body):
        self.echo(parts, body)

    def route_headers(self, parts, query, segments, body):
        self.send_json(200, {"headers": self.header_dict(), "unparsed_header_lines": self.unparsed_header_lines()})

    def route_status(self, parts, query, segments, body):
        code = int(segments[1])
        if not 200 <= code <= 599:
            raise ValueError("status must be 200...599")
        kind = first(query, "body", "metadata" if code >= 400 else "json")
        data, content_type = status_body(code, kind)
        self.send(code, data, content_type)

    def route_delay(self, parts, query, segments, body):
        seconds = min(max(float(segments[1]), 0.0), MAX_DELAY)
        time.sleep(seconds)
        self.echo(parts, body, {"delay": seconds})

    def route_bytes(self, parts, query, segments, body):
        n = min(max(int(segments[1]), 0), MAX_BYTES)
        self.send(200, pattern_bytes(n), "application/octet-stream")

    def route_json(self, parts, query, segments, body):
        if segments[1:] != ["large"]:
            raise ValueError("only /json/large exists")
        kb = min(int(first(query, "kb", "64")), 50 * 1024)
        self.send(200, large_document(kb), "application/json")

    def route_gzip(self, parts, query, segments, body):
        expand_mb = min(max(int(first(query, "expand_mb", "0")), 0), 4096)
        if expand_mb:
            data = gzip_of_zeros(expand_mb)
        else:
            data = gzip.compress(json_bytes({"gzipped": True, "method": self.command}))
        self.send(200, data, "application/json", {"Content-Encoding": "gzip"})

    def route_response_headers(self, parts, query, segments, body):
        headers = {k: v[0] for k, v in query.items()}
        self.send_json(200, headers, headers)

    def route_redirect_to(self, parts, query, segments, body):
        target = first(query, "url")
        if not target:
            raise ValueError("url is required")
        code = int(first(query, "status", "302"))
        time.sleep(min(max(float(first(query, "delay", "0")), 0.0), MAX_DELAY))
        self.send(code, b"", None, {"Location": target})

    def route_relative_redirect(self, parts, query, segments, body):
        target = first(query, "location")
        if target is None:
            self.echo(parts, body)
            return
        self.send(int(first(query, "status", "302")), b"", None, {"Location": target})

    def route_redirect_loop(self, parts, query, segments, body):
        self.send(int(segments[1]), b"", None, {"Location": parts.path})

    def route_redirect(self, parts, query, segments, body):
        n = int(segments[1])
        target = "/redirect/%d" % (n - 1) if n > 1 else "/anything"
        self.send(302, b"", None, {"Location": target})

    def check_token(self, presented, realm, query):
        valid = STATE.token(realm)
        if presented is not None and presented == valid:
            self.send_json(200, {"authenticated": True, "token": presented})
        else:
            challenge = {"WWW-Authenticate": BASIC_CHALLENGE} if first(query, "challenge") == "basic" else None
            self.send_json(401, {"metadata": {"status": "401", "desc": "token expired"}}, challenge)

    def route_basic_auth(self, parts, query, segments, body):
        user, password = segments[1], segments[2]
        expected = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        if self.headers.get("Authorization") == expected and first(query, "then"):
            self.send(302, b"", None, {"Location": first(query, "then")})
        elif self.headers.get("Authorization") == expected:
            self.send_json(200, {"authenticated": True, "user": user, "body_length": len(body)})
        else:
            self.send_json(401, {"metadata": {"status": "401", "desc": "credentials required"}},
                           {"WWW-Authenticate": BASIC_CHALLENGE})

    def route_bearer(self, parts, query, segments, body):
        value = self.headers.get("Authorization", "")
        presented = value[len("Bearer "):] if value.startswith("Bearer ") else None
        self.check_token(presented, realm_of(segments, 1), query)

    def route_x_auth(self, parts, query, segments, body):
        self.check_token(self.headers.get("x-auth-token"), realm_of(segments, 1), query)

    def route_auth(self, parts, query, segments, body):
        action = segments[1] if len(segments) > 1 else ""
        realm = realm_of(segments, 2)
        if action == "token":
            self.send_json(200, {"token": STATE.rotate(realm)})
        elif action == "valid":
            self.send_json(200, {"valid": first(query, "token") == STATE.token(realm)})
        elif action == "set":
            token = first(query, "token")
            if not token:
                raise ValueError("token is required")
            STATE.set_token(realm, token)
            self.send_json(200, {"token": token})
        elif action == "stats":
            self.send_json(200, {"token": STATE.token(realm), "rotations": STATE.rotation_count(realm)})
        else:
            raise ValueError("unknown auth action")

    def route_counter(self, parts, query, segments, body):
        key = segments[1]
        if len(segments) == 2:
            self.send_json(200, {"count": STATE.count_for(key)})
            return
        if segments[2] != "statuses":
            raise ValueError("unknown counter route")
        seq = [s for s in first(query, "seq", "200").split(",") if s]
        attempt = STATE.next_attempt(key)
        entry = seq[min(attempt, len(seq)) - 1] if seq else "200"
        status_text, _, delay_text = entry.partition("@")
        code = int(status_text)
        if delay_text:
            time.sleep(min(max(float(delay_text), 0.0), MAX_DELAY))
        headers = {}
        retry_after = first(query, "retry_after")
        if retry_after is not None and code >= 400:
            headers["Retry-After"] = retry_after
        value = {"attempt": attempt, "status": code, "body_length": len(body)}
        if code >= 400:
            value["metadata"] = {"status": str(code), "desc": message_for(code)}
        self.send_json(code, value, headers)

    def route_multipart(self, parts, query, segments, body):
        content_type = self.headers.get("Content-Type", "")
        if not content_type.startswith("multipart/form-data"):
            raise ValueError("not multipart/form-data: %r" % content_type)
        head = ("Content-Type: %s\r\nMIME-Version: 1.0\r\n\r\n" % content_type).encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        if not message.is_multipart() or message.defects:
            raise ValueError("malformed form: %r" % (message.defects,))
        found = []
        for part in message.iter_parts():
            payload = part.get_payload(decode=True) or b""
            found.append({
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_filename(),
                "content_type": part.get("Content-Type"),
                "size": len(payload),
                "fnv1a": str(fnv1a64(payload)),
            })
        self.send_json(200, {"parts": found})

    def route_reset(self, parts, query, segments, body):
        STATE.reset()
        self.send_json(200, {"reset": True})

    def route_stats(self, parts, query, segments, body):
        with STATE.lock:
            total = STATE.requests
        self.send_json(200, {"requests": total})

    def route_stall(self, parts, query, segments, body):
        self.close_connection = True
        key = first(query, "key")
        if key:
            STATE.set_stall(key, "open")
        self.hold_until_closed()
        if key:
            STATE.set_stall(key, "closed")

    def route_stall_state(self, parts, query, segments, body):
        wanted = first(query, "until", "closed")
        timeout = min(max(float(first(query, "timeout", "10")), 0.0), MAX_DELAY)
        self.send_json(200, {"state": STATE.wait_for_stall(segments[1], wanted, timeout)})

    def hold_until_closed(self):
        """Keeps the connection open, sending nothing, until the client closes it or MAX_STALL passes."""
        deadline = time.monotonic() + MAX_STALL
        sock = self.connection
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0.25)
            if readable:
                try:
                    if not sock.recv(4096):
                        return  # the client closed the connection
                except OSError:
                    return

    def route_drip(self, parts, query, segments, body):
        self.close_connection = True
        length_text = first(query, "length", str(10 * 1024 ** 3))
        length = None if length_text == "none" else max(int(length_text), 0)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        stall_after = int(first(query, "stall_after", "-1"))
        chunk = pattern_bytes(1024)
        deadline = time.monotonic() + MAX_STALL
        sent = 0
        chunks = 0
        try:
            while time.monotonic() < deadline and (length is None or sent < length):
                if chunks == stall_after:
                    self.hold_until_closed()
                    return
                piece = chunk if length is None else chunk[: length - sent]
                self.wfile.write(piece)
                self.wfile.flush()
                sent += len(piece)
                chunks += 1
                time.sleep(0.05)
        except OSError:
            return  # the client closed the connection

    def route_events(self, parts, query, segments, body):
        self.close_connection = True
        count = max(int(first(query, "count", "3")), 0)
        start = int(self.headers.get("Last-Event-ID") or "0") + 1
        per = int(first(query, "per", str(count)))
        eol = "\r" if first(query, "cr", "0") == "1" else "\n"
        if start > count:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            self.wfile.write(b": a comment the client skips\r\n\r\n")
            retry = first(query, "retry", None)
            if retry is not None:
                self.wfile.write(("retry: %s%s%s" % (retry, eol, eol)).encode())
            for i in range(start, min(count, start + per - 1) + 1):
                event = "id: %d\nevent: tick\ndata: tick %d\ndata: of %d\n\n" % (i, i, count)
                self.wfile.write(event.replace("\n", eol).encode())
                self.wfile.flush()
            if first(query, "hold", "0") == "1":
                self.hold_until_closed()
        except OSError:
            return  # the client closed the connection

    def route_close_mid_body(self, parts, query, segments, body):
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(pattern_bytes(10))
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


    def route_resumable(self, parts, query, segments, body):
        key = segments[1]
        if segments[2:] == ["log"]:
            self.send_json(200, STATE.resumable_log(key))
            return
        size = min(max(int(first(query, "size", "100000")), 1), MAX_BYTES)
        cuts = [int(c) for c in first(query, "cuts", "").split(",") if c]
        kind = first(query, "validator", "etag")
        attempt = STATE.next_attempt("resumable:" + key)
        failing = dict(pair.split(":", 1) for pair in first(query, "fail", "").split(",") if ":" in pair)
        if str(attempt) in failing:
            status = int(failing[str(attempt)])
            STATE.log_resumable(key, {"range": self.headers.get("Range"), "if_range": self.headers.get("If-Range"),
                                      "status": status})
            self.send_json(status, {"metadata": {"status": str(status), "desc": "failing as asked"}})
            return
        headers = {"Accept-Ranges": "bytes"}
        changes = first(query, "changes")
        version = attempt if changes == "1" else (min(attempt, 2) if changes == "once" else 1)
        tag = '"v%d-%s"' % (version, key)
        if kind == "etag":
            headers["ETag"] = tag
        elif kind == "weak":
            headers["ETag"] = "W/" + tag
        elif kind == "date":
            headers["Last-Modified"] = "Sun, 06 Nov 1994 08:49:37 GMT"
        current = headers.get("ETag") or headers.get("Last-Modified")
        wanted = self.headers.get("Range")
        start = 0
        if wanted and wanted.startswith("bytes=") and wanted.endswith("-") and current is not None \
                and self.headers.get("If-Range") == current:
            start = int(wanted[len("bytes="):-1])
        status = 206 if 0 < start < size else 200
        end = size
        misbehave = first(query, "misbehave")
        if status == 206 and misbehave == "416":
            STATE.log_resumable(key, {"range": wanted, "if_range": self.headers.get("If-Range"), "status": 416})
            self.send(416, b"", None, {"Content-Range": "bytes */%d" % size})
            return
        if status == 206 and misbehave == "short":
            end = min(start + 1000, size)
        if status == 206 and misbehave == "offset":
            start -= 1
        if status == 200:
            start = 0
        else:
            headers["Content-Range"] = "bytes %d-%d/%d" % (start, end - 1, size)
        STATE.log_resumable(key, {"range": wanted, "if_range": self.headers.get("If-Range"), "status": status})
        data = pattern_bytes(size)[start:end]
        cut = cuts[attempt - 1] - start if attempt <= len(cuts) else None
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if cut is None:
            self.wfile.write(data)
            return
        self.close_connection = True
        self.wfile.write(data[:max(cut, 0)])
        self.wfile.flush()
        if first(query, "hold") == "1":
            self.hold_until_closed()
            return
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def route_raw(self, parts, query, segments, body):
        """The hostile-response corpus: the client sends the exact bytes it wants back."""
        self.close_connection = True
        self.wfile.write(body)
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def realm_of(segments, index):
    return segments[index] if len(segments) > index else "default"


ROUTES = {
    "anything": Handler.route_anything,
    "headers": Handler.route_headers,
    "status": Handler.route_status,
    "delay": Handler.route_delay,
    "bytes": Handler.route_bytes,
    "json": Handler.route_json,
    "gzip": Handler.route_gzip,
    "response-headers": Handler.route_response_headers,
    "redirect-to": Handler.route_redirect_to,
    "relative-redirect": Handler.route_relative_redirect,
    "redirect": Handler.route_redirect,
    "redirect-loop": Handler.route_redirect_loop,
    "bearer": Handler.route_bearer,
    "basic-auth": Handler.route_basic_auth,
    "x-auth": Handler.route_x_auth,
    "auth": Handler.route_auth,
    "counter": Handler.route_counter,
    "multipart": Handler.route_multipart,
    "reset": Handler.route_reset,
    "stats": Handler.route_stats,
    "stall": Handler.route_stall,
    "stall-state": Handler.route_stall_state,
    "close-mid-body": Handler.route_close_mid_body,
    "resumable": Handler.route_resumable,
    "drip": Handler.route_drip,
    "events": Handler.route_events,
    "raw": Handler.route_raw,
}


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (BrokenPipeError, ConnectionResetError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def exit_now(*_):
    os._exit(0)


def stdin_is_pipe():
    """True when stdin is a pipe or socket, whose end of file means the parent is gone.

    A terminal, /dev/null, /dev/zero or a regular file says nothing about the parent (and
    /dev/zero would never end), so those are not watched.
    """
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def watch_stdin():
    """Exits when stdin reaches end of file: the parent closed the pipe or died."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    exit_now()


def watch_parent(parent):
    """Exits when the process that started the server goes away (belt and braces)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            exit_now()


def main():
    parser = argparse.ArgumentParser(description="Courier's local test server (127.0.0.1 only).")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 (default) picks a free one")
    parser.add_argument("--no-stdin-watch", action="store_true",
                        help="keep serving when stdin closes (for running by hand in the background)")
    options = parser.parse_args()
    port = options.port
    watch_input = not options.no_stdin_watch
    server = Server(("127.0.0.1", port), Handler)
    signal.signal(signal.SIGTERM, exit_now)
    signal.signal(signal.SIGINT, exit_now)
    if watch_input and stdin_is_pipe():
        threading.Thread(target=watch_stdin, daemon=True).start()
    parent = os.getppid()
    if watch_input and parent != 1:
        threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever(poll_interval=0.25)


if __name__ == "__main__":
    main()
