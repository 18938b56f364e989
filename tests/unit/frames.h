/*
 * frames.h: frames of a record of the link, built for the tests of its
 * readers (test_tcpacked, test_dataspan): an Ethernet II header, IPv4 and a
 * TCP or UDP header, the payload only as the IPv4 length says, as in a
 * 96-byte capture. Not a test double: the readers get the bytes a capture
 * would hold.
 */
#ifndef HB_TEST_FRAMES_H
#define HB_TEST_FRAMES_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#define FRAME_BYTES 64

struct seg {
	const char *src, *dst;
	unsigned sport, dport;
	uint32_t seq, ack;
	unsigned flags;		/* 0x02 SYN, 0x10 ACK */
	unsigned payload;
};

struct dgram {
	const char *src, *dst;
	unsigned sport, dport;
	unsigned payload;
};

/* The IPv4 header and the ports, for l4 bytes of header and payload. */
static inline unsigned char *frame_ip(unsigned char f[FRAME_BYTES], const char *src,
				      const char *dst, unsigned proto, unsigned sport,
				      unsigned dport, unsigned l4)
{
	memset(f, 0, FRAME_BYTES);
	f[12] = 0x08;
	f[13] = 0x00;
	unsigned char *ip = f + 14, *p = ip + 20;
	unsigned total = 20 + l4;
	ip[0] = 0x45;
	ip[2] = (unsigned char)(total >> 8);
	ip[3] = (unsigned char)total;
	ip[9] = (unsigned char)proto;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	p[0] = (unsigned char)(sport >> 8);
	p[1] = (unsigned char)sport;
	p[2] = (unsigned char)(dport >> 8);
	p[3] = (unsigned char)dport;
	return p;
}

/* A TCP segment's captured bytes (54: no payload captured) into f. */
static inline size_t frame_build(unsigned char f[FRAME_BYTES], const struct seg *s)
{
	unsigned char *tcp = frame_ip(f, s->src, s->dst, IPPROTO_TCP, s->sport, s->dport,
				      20 + s->payload);
	for (int i = 0; i < 4; i++) {
		tcp[4 + i] = (unsigned char)(s->seq >> (24 - 8 * i));
		tcp[8 + i] = (unsigned char)(s->ack >> (24 - 8 * i));
	}
	tcp[12] = 5 << 4;
	tcp[13] = (unsigned char)s->flags;
	return 14 + 20 + 20;
}

/* A UDP datagram's captured bytes (42: no payload captured) into f. */
static inline size_t frame_build_udp(unsigned char f[FRAME_BYTES], const struct dgram *d)
{
	unsigned char *udp = frame_ip(f, d->src, d->dst, IPPROTO_UDP, d->sport, d->dport,
				      8 + d->payload);
	udp[4] = (unsigned char)((8 + d->payload) >> 8);
	udp[5] = (unsigned char)(8 + d->payload);
	return 14 + 20 + 8;
}

#endif
