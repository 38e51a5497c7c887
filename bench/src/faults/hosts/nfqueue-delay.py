#!/usr/bin/env python3
# A packet delay for a kernel without sch_netem: iptables sends a host's packets to NFQUEUE queue --queue, and
# this program, bound to that queue over netlink (python3's standard library only, nothing compiled), gives
# each packet its verdict (accept) after an independent uniform delay of --min-ms to --max-ms, as netem's
# `delay 200ms 50ms` holds each packet (so packets may be reordered, as with netem). Run inside the host's
# network namespace (queues are per namespace), as root. Prints "ready" once bound; on SIGTERM or SIGINT it
# lets every held packet go at once, prints "delayed <packets>" and exits 0.
#
# Wire format (linux/netfilter/nfnetlink_queue.h): netlink header, nfgenmsg (family, version, queue number
# big-endian), then attributes. NFQNL_MSG_CONFIG binds the queue and asks for metadata only (no payload
# copies); NFQNL_MSG_PACKET carries NFQA_PACKET_HDR (packet id first, big-endian); NFQNL_MSG_VERDICT answers with
# NFQA_VERDICT_HDR (verdict, packet id).
import argparse
import heapq
import random
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NF_ACCEPT = 1
# Packets the kernel keeps waiting for a verdict; past it, it drops them. A held packet waits at most max-ms.
QUEUE_MAXLEN = 262144


def attribute(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def message(kind, flags, queue, attributes, seq=0):
    body = struct.pack("=BB", socket.AF_UNSPEC, 0) + struct.pack("!H", queue) + b"".join(attributes)
    header = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind, flags, seq, 0)
    return header + body


def configure(sock, queue, attributes, seq):
    sock.send(message(NFQNL_MSG_CONFIG, NLM_F_REQUEST | NLM_F_ACK, queue, attributes, seq))
    reply = sock.recv(65536)
    _length, kind, _flags, _seq, _pid = struct.unpack_from("=IHHII", reply, 0)
    if kind == NLMSG_ERROR:
        (error,) = struct.unpack_from("=i", reply, 16)
        if error != 0:
            raise OSError(-error, f"NFQUEUE configuration refused (seq {seq})")


def packet_ids(data):
    offset = 0
    while offset + 16 <= len(data):
        length, kind, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, offset)
        if length < 16:
            return
        if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            at = offset + 20  # past the netlink header and nfgenmsg
            while at + 4 <= offset + length:
                attr_length, attr_kind = struct.unpack_from("=HH", data, at)
                if attr_length < 4:
                    break
                if attr_kind & 0x3FFF == NFQA_PACKET_HDR:
                    yield struct.unpack_from("!I", data, at + 4)[0]
                    break
                at += (attr_length + 3) & ~3
        offset += (length + 3) & ~3


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queue", type=int, default=0)
    parser.add_argument("--min-ms", type=float, required=True)
    parser.add_argument("--max-ms", type=float, required=True)
    args = parser.parse_args()

    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    sock.bind((0, 0))
    sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
    sock.setsockopt(socket.SOL_SOCKET, 33, 16 * 1024 * 1024)  # SO_RCVBUFFORCE: root may exceed rmem_max
    configure(sock, args.queue, [attribute(NFQA_CFG_CMD, struct.pack("!BBH", NFQNL_CFG_CMD_BIND, 0, socket.AF_INET))], 1)
    configure(sock, args.queue, [attribute(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))], 2)
    configure(sock, args.queue, [attribute(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", QUEUE_MAXLEN))], 3)
    sock.setblocking(False)

    def verdict(packet_id):
        attributes = [attribute(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id))]
        sock.send(message(NFQNL_MSG_VERDICT, NLM_F_REQUEST, args.queue, attributes))

    stopping = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.append(True))
    print("ready", flush=True)

    held = []  # (due, packet id), soonest first
    delayed = 0
    low, high = args.min_ms / 1000, args.max_ms / 1000
    while not stopping:
        timeout = max(0.0, held[0][0] - time.monotonic()) if held else 0.5
        readable, _, _ = select.select([sock], [], [], timeout)
        if readable:
            while True:
                try:
                    data = sock.recv(1 << 20)
                except BlockingIOError:
                    break
                now = time.monotonic()
                for packet_id in packet_ids(data):
                    heapq.heappush(held, (now + random.uniform(low, high), packet_id))
                    delayed += 1
        now = time.monotonic()
        while held and held[0][0] <= now:
            verdict(heapq.heappop(held)[1])
    # The rules are removed before the stop: what is still held goes now rather than be dropped with the socket.
    while held:
        verdict(heapq.heappop(held)[1])
    print(f"delayed {delayed}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
