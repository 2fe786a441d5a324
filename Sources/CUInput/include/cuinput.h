// The C boundary to the Linux uinput device (<linux/uinput.h>): the ioctl
// request macros and the variadic ioctl() are not importable into Swift, so
// each request has a fixed-signature wrapper here. Event type and code
// constants (<linux/input-event-codes.h>) import directly.
#ifndef CUINPUT_H
#define CUINPUT_H

#include <linux/input.h>
#include <linux/uinput.h>
#include <stdint.h>
#include <sys/types.h>

/// One input event without its time stamp (the kernel stamps what a
/// uinput device emits). Same layout as the Swift `InputEvent`.
struct cuinput_event {
  uint16_t type;
  uint16_t code;
  int32_t value;
};

/// UI_GET_VERSION: the uinput protocol version (UI_ABS_SETUP needs >= 5).
int cuinput_version(int fd, unsigned int *version);

/// UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_ABSBIT, UI_SET_PROPBIT: what the
/// device may emit. Return 0, or -1 with errno set.
int cuinput_set_evbit(int fd, int type);
int cuinput_set_keybit(int fd, int code);
int cuinput_set_absbit(int fd, int code);
int cuinput_set_propbit(int fd, int property);

/// UI_ABS_SETUP (struct uinput_abs_setup): an absolute axis's range and
/// resolution (units per millimetre for positions).
int cuinput_abs_setup(int fd, uint16_t code, int32_t minimum, int32_t maximum, int32_t resolution);

/// UI_DEV_SETUP (struct uinput_setup): name and ids.
int cuinput_dev_setup(
    int fd, const char *name, uint16_t bustype, uint16_t vendor, uint16_t product, uint16_t version);

/// UI_DEV_CREATE, UI_DEV_DESTROY.
int cuinput_dev_create(int fd);
int cuinput_dev_destroy(int fd);

/// UI_GET_SYSNAME(length): the device's name under /sys/devices/virtual/input
/// ("input12"), NUL-terminated.
int cuinput_sysname(int fd, char *buffer, unsigned int length);

/// The most events one cuinput_write takes (a frame of MultiTouchEncoder
/// is at most maxEventsPerFrame of them).
#define CUINPUT_MAX_EVENTS 128

/// Writes `count` events (at most CUINPUT_MAX_EVENTS: a whole frame) as
/// struct input_event records in one write(), so that a frame reaches the
/// device whole or not at all. Returns `count`, or -1 with errno set
/// (EMSGSIZE for more than CUINPUT_MAX_EVENTS, nothing written).
ssize_t cuinput_write(int fd, const struct cuinput_event *events, unsigned int count);

/// The request numbers, for tests and traces.
static const unsigned long cuinput_request_dev_create = UI_DEV_CREATE;
static const unsigned long cuinput_request_abs_setup = UI_ABS_SETUP;
static const unsigned long cuinput_request_dev_setup = UI_DEV_SETUP;

#endif
