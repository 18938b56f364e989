/*
 * frame: the headers of one frame of a record of the link (a live capture
 * or QEMU's filter-dump) that the records' readers need: an Ethernet II
 * header, IPv4, then TCP or UDP.
 *
 * Frames are hostile input (the kernel under test writes them): every
 * length is checked against what was captured and against the IPv4 total
 * length, and a fragment is not parsed (only a whole datagram's payload
 * means anything to a reader).
 *
 * Contract: frame_parse() fills *f and returns 1 when the frame holds a
 * whole Ethernet II header, an unfragmented IPv4 header and a TCP header up
 * to its flags, or a UDP header; else 0, *f undefined. Pure.
 */
#ifndef HB_FRAME_H
#define HB_FRAME_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_TCP_FIN 0x01
#define FRAME_TCP_SYN 0x02
#define FRAME_TCP_ACK 0x10

struct frame {
	struct in_addr src, dst;
	int proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t sport, dport;
	uint8_t tcp_flags;		/* TCP only */
	uint32_t ack;			/* TCP only */
	long payload;			/* bytes past the TCP or UDP header */
};

int frame_parse(const unsigned char *f, size_t caplen, struct frame *out);

#endif
