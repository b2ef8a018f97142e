#!/usr/bin/env python3
"""Regenerates the seed corpora in this directory: seeds/ (responses, for FuzzResponse and FuzzClient)
and request-seeds/ (caller values, for FuzzRequest).

Input layout (see Fuzz/Sources/FuzzResponse/FuzzInput.swift): 2 bytes big-endian status,
1 byte header-line count, that many "Name: value\n" lines, then the body.
Run: python3 Fuzz/Corpus/make_seeds.py
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def seed(status, headers, body):
    lines = b"".join(f"{k}: {v}\n".encode() for k, v in headers)
    return struct.pack(">HB", status, len(headers)) + lines + body


JSON = [("Content-Type", "application/json")]
SEEDS = {
    "ok_item": seed(200, JSON, b'{"id":7,"name":"Lamp","price":19.5,"tags":["a","b"],"owner":{"id":1,"email":null}}'),
    "ok_missing_key": seed(200, JSON, b'{"id":7}'),
    "ok_wrong_type": seed(200, JSON, b'{"id":"7","name":3}'),
    "ok_null": seed(200, JSON, b"null"),
    "ok_empty": seed(204, [], b""),
    "ok_truncated": seed(200, JSON, b'{"id":7,"name":"La'),
    "ok_nested": seed(200, JSON, b"[" * 40 + b"]" * 40),
    "ok_deep_member": seed(200, JSON, b'{"id":1,"name":"a","extra":' + b"[" * 99 + b"]" * 99 + b"}"),
    "ok_at_depth_limit": seed(200, JSON, b"[" * 100 + b"]" * 100),
    "ok_invalid_utf8": seed(200, JSON, b'{"id":7,"name":"\xff\xfe"}'),
    "ok_escapes": seed(200, JSON, b'{"id":1,"name":"\\u0000\\ud83d\\ude00\\n\\"x"}'),
    "ok_numbers": seed(200, JSON, b'[1e308,-0.0,123456789012345678901234567890,0.1,-1]'),
    "client_metadata": seed(404, JSON, b'{"metadata":{"status":"USR404","desc":"User not found"}}'),
    "client_error_object": seed(422, JSON, b'{"error":{"code":42,"message":"bad"}}'),
    "client_error_string": seed(401, [("WWW-Authenticate", "Bearer")], b'{"error":"expired","code":"E1"}'),
    "client_wrong_types": seed(400, JSON, b'{"metadata":{"status":[1],"desc":{"x":1}}}'),
    "server_html": seed(502, [("Content-Type", "text/html")], b"<html><body><h1>502 Bad Gateway</h1></body></html>"),
    "server_retry_seconds": seed(503, [("Retry-After", "120")], b'{"message":"busy","status":503}'),
    "server_retry_date": seed(503, [("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")], b""),
    "server_retry_rfc850": seed(429, [("Retry-After", "Wednesday, 21-Oct-15 07:28:00 GMT")], b""),
    "server_retry_asctime": seed(429, [("Retry-After", "Wed Oct 21 07:28:00 2015")], b""),
    # Regression (found by FuzzResponse): DateFormatter trapped on a combining mark after the day.
    "server_retry_combining_mark": struct.pack(">HB", 503, 1) + b"Retry-After: Wed, 21\xdc\xb0" + b"\x00" * 38 + b" G\n",
    "status_zero": seed(0, [], b""),
    "status_99": seed(99, [], b"x"),
    "status_1xx": seed(101, [("Upgrade", "websocket")], b""),
    "status_3xx": seed(302, [], b""),
    "status_999": seed(999, JSON, b'{"detail":"odd"}'),
    "headers_secret": seed(200, [("Set-Cookie", "a=b"), ("X-Api-Key", "k"), ("x-session-token", "t"), ("Location", "/x")], b"{}"),
    "headers_duplicate": seed(200, [("X-Dup", "1"), ("x-dup", "2"), ("X-Dup", "3")], b"{}"),
}

# FuzzRequest reads caller values: NUL-separated path, form name, form value, query name/value pairs.
def fields(*values):
    return b"\0".join(v.encode() if isinstance(v, str) else v for v in values)


REQUEST_SEEDS = {
    "plain": fields("users/42", "name", "Ada", "page", "2"),
    "spaces_unicode": fields("users/Ada Lovelace/żółw", "emoji", "☕️ +1", "q", "a b&c=d#e+f"),
    "dot_dot": fields("files/../admin", "", "", "x", ""),
    "encoded": fields("a%20b/%2E%2E/c%zz", "k%", "v%41", "flag", ""),
    "leading_slashes": fields("///x//y/", "a", "", "", "v"),
    "controls": fields("a\r\nb\tc", "a\r\n", "b\x00", "c\r\n", "d"),
    "invalid_utf8": fields(b"p\xff\xfe", b"\xc3", b"\x28", "q", b"\xe2\x82"),
    "query_delimiters": fields("", "=", "&", "?#", "&&==", "+", "%2B"),
}


def write(folder, seeds):
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(seeds)} seeds to {folder}")


write(HERE, SEEDS)
write(os.path.join(os.path.dirname(HERE), "request-seeds"), REQUEST_SEEDS)
