#!/usr/bin/env python3
"""A stand-in ACP agent for benches/acp_ceiling.rs: it answers initialize and session/new, and to
session/prompt writes a prepared stream of N `session/update` notifications (N from argv[1]) as
fast as the pipe takes it, in one write, then ends the turn. The stream is built before the
prompt comes, so what is measured is the client, not this script."""
import json
import sys

n = int(sys.argv[1])
out = sys.stdout.buffer
session = "s1"
lines = []
for i in range(n):
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"word{i} "}}
    lines.append(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}}))
stream = ("\n".join(lines) + "\n").encode()


def answer(id_, result):
    out.write((json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n").encode())
    out.flush()


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, id_ = msg.get("method"), msg.get("id")
    if id_ is None:
        continue
    if method == "initialize":
        answer(id_, {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []})
    elif method == "session/new":
        answer(id_, {"sessionId": session})
    elif method == "session/prompt":
        out.write(stream)
        answer(id_, {"stopReason": "end_turn"})
    elif "method" in msg:
        out.write((json.dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "not here"}}) + "\n").encode())
        out.flush()
