#include "cuinput.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int cuinput_version(int fd, unsigned int *version) { return ioctl(fd, UI_GET_VERSION, version); }

int cuinput_set_evbit(int fd, int type) { return ioctl(fd, UI_SET_EVBIT, type); }
int cuinput_set_keybit(int fd, int code) { return ioctl(fd, UI_SET_KEYBIT, code); }
int cuinput_set_absbit(int fd, int code) { return ioctl(fd, UI_SET_ABSBIT, code); }
int cuinput_set_propbit(int fd, int property) { return ioctl(fd, UI_SET_PROPBIT, property); }

int cuinput_abs_setup(int fd, uint16_t code, int32_t minimum, int32_t maximum, int32_t resolution) {
  struct uinput_abs_setup setup;
  memset(&setup, 0, sizeof setup);
  setup.code = code;
  setup.absinfo.minimum = minimum;
  setup.absinfo.maximum = maximum;
  setup.absinfo.resolution = resolution;
  return ioctl(fd, UI_ABS_SETUP, &setup);
}

int cuinput_dev_setup(
    int fd, const char *name, uint16_t bustype, uint16_t vendor, uint16_t product, uint16_t version) {
  struct uinput_setup setup;
  memset(&setup, 0, sizeof setup);
  strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
  setup.id.bustype = bustype;
  setup.id.vendor = vendor;
  setup.id.product = product;
  setup.id.version = version;
  return ioctl(fd, UI_DEV_SETUP, &setup);
}

int cuinput_dev_create(int fd) { return ioctl(fd, UI_DEV_CREATE); }
int cuinput_dev_destroy(int fd) { return ioctl(fd, UI_DEV_DESTROY); }

int cuinput_sysname(int fd, char *buffer, unsigned int length) {
  return ioctl(fd, UI_GET_SYSNAME(length), buffer);
}

ssize_t cuinput_write(int fd, const struct cuinput_event *events, unsigned int count) {
  struct input_event records[CUINPUT_MAX_EVENTS];
  if (count > CUINPUT_MAX_EVENTS) {
    errno = EMSGSIZE;
    return -1;
  }
  memset(records, 0, sizeof(struct input_event) * count);
  for (unsigned int i = 0; i < count; i++) {
    records[i].type = events[i].type;
    records[i].code = events[i].code;
    records[i].value = events[i].value;
  }
  // One write() for the whole frame: uinput injects every event of a
  // write or, failing before the first, none; a frame is never split.
  size_t bytes = sizeof(struct input_event) * count;
  size_t written = 0;
  while (written < bytes) {
    ssize_t w = write(fd, (const char *)records + written, bytes - written);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    written += (size_t)w;
  }
  return (ssize_t)count;
}
