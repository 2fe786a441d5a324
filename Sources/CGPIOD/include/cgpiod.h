// The C boundary to GPIO character devices through libgpiod (Debian
// libgpiod-dev). Debian 12 ships the v1.6 API; libgpiod 2 changed every
// call. This module hides the difference behind a few fixed-signature
// functions: one line requested for edge events, its event file descriptor,
// reading one event, its level, release.
//
// The API is chosen at compile time: only v1's <gpiod.h> defines
// GPIOD_LINE_BULK_MAX_LINES, so its absence means v2.
#ifndef CGPIOD_H
#define CGPIOD_H

#include <gpiod.h>
#include <poll.h>
#include <stdint.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define CGPIOD_API_VERSION 1
#else
#define CGPIOD_API_VERSION 2
#endif

/// Which edges produce events.
enum cgpiod_edge {
  CGPIOD_EDGE_RISING = 1,
  CGPIOD_EDGE_FALLING = 2,
  CGPIOD_EDGE_BOTH = 3,
};

/// The line's bias (pull-up for an open-drain data-ready output).
enum cgpiod_bias {
  CGPIOD_BIAS_AS_IS = 0,
  CGPIOD_BIAS_DISABLED = 1,
  CGPIOD_BIAS_PULL_UP = 2,
  CGPIOD_BIAS_PULL_DOWN = 3,
};

/// Event types, the same numbers in v1 and v2.
enum cgpiod_event_type {
  CGPIOD_EVENT_RISING = 1,
  CGPIOD_EVENT_FALLING = 2,
};

/// One requested line (opaque).
typedef struct cgpiod_line cgpiod_line;

/// Opens `chip` ("gpiochip0", "/dev/gpiochip0" or "0") and requests line
/// `offset` as an input with edge events. Returns NULL with errno set.
/// v1: gpiod_chip_open_lookup, gpiod_chip_get_line, gpiod_line_request.
/// v2: gpiod_chip_open, gpiod_line_settings/_config, gpiod_chip_request_lines.
cgpiod_line *cgpiod_request_events(const char *chip, unsigned int offset,
                                   int edge, int bias, const char *consumer);

/// The file descriptor that becomes readable when an event is queued
/// (v1 gpiod_line_event_get_fd, v2 gpiod_line_request_get_fd).
int cgpiod_event_fd(cgpiod_line *line);

/// Reads one queued event (blocks if none). Returns 0, or -1 with errno.
/// v1 gpiod_line_event_read, v2 gpiod_line_request_read_edge_events.
int cgpiod_read_event(cgpiod_line *line, int *type, uint64_t *timestamp_ns);

/// The line's current level: 1 high, 0 low, -1 with errno.
int cgpiod_get_value(cgpiod_line *line);

/// Releases the line and closes its chip.
void cgpiod_release(cgpiod_line *line);

/// The libgpiod version string (v1 gpiod_version_string, v2 gpiod_api_version).
const char *cgpiod_library_version(void);

/// ppoll(2) on `count` descriptors for at most `timeout_ns` (ppoll needs
/// _GNU_SOURCE, which Swift's Glibc module does not see). Returns the
/// number of ready descriptors, 0 on timeout, or -1 with errno.
int cgpiod_ppoll(struct pollfd *fds, unsigned long count, int64_t timeout_ns);

/// 1 or 2: which libgpiod API this module was compiled against.
static inline int cgpiod_api_version(void) { return CGPIOD_API_VERSION; }

#endif
