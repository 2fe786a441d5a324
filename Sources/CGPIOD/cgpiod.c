#define _GNU_SOURCE
#include "cgpiod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

int cgpiod_ppoll(struct pollfd *fds, unsigned long count, int64_t timeout_ns) {
  if (timeout_ns < 0) timeout_ns = 0;
  struct timespec timeout = {.tv_sec = timeout_ns / 1000000000,
                             .tv_nsec = timeout_ns % 1000000000};
  return ppoll(fds, (nfds_t)count, &timeout, NULL);
}

#if CGPIOD_API_VERSION == 1

struct cgpiod_line {
  struct gpiod_chip *chip;
  struct gpiod_line *line;
};

cgpiod_line *cgpiod_request_events(const char *chip, unsigned int offset,
                                   int edge, int bias, const char *consumer) {
  struct gpiod_line_request_config config = {.consumer = consumer};
  switch (edge) {
  case CGPIOD_EDGE_RISING:
    config.request_type = GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
    break;
  case CGPIOD_EDGE_FALLING:
    config.request_type = GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE;
    break;
  case CGPIOD_EDGE_BOTH:
    config.request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
    break;
  default:
    errno = EINVAL;
    return NULL;
  }
  switch (bias) {
  case CGPIOD_BIAS_AS_IS: break;
  case CGPIOD_BIAS_DISABLED: config.flags = GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
  case CGPIOD_BIAS_PULL_UP: config.flags = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
  case CGPIOD_BIAS_PULL_DOWN: config.flags = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
  default:
    errno = EINVAL;
    return NULL;
  }
  cgpiod_line *result = calloc(1, sizeof *result);
  if (!result) return NULL;
  result->chip = gpiod_chip_open_lookup(chip);
  if (!result->chip) goto fail;
  result->line = gpiod_chip_get_line(result->chip, offset);
  if (!result->line) goto fail;
  if (gpiod_line_request(result->line, &config, 0) < 0) goto fail;
  return result;
fail:;
  int saved = errno;
  if (result->chip) gpiod_chip_close(result->chip);
  free(result);
  errno = saved;
  return NULL;
}

int cgpiod_event_fd(cgpiod_line *line) {
  return gpiod_line_event_get_fd(line->line);
}

int cgpiod_read_event(cgpiod_line *line, int *type, uint64_t *timestamp_ns) {
  struct gpiod_line_event event;
  if (gpiod_line_event_read(line->line, &event) < 0) return -1;
  *type = event.event_type;
  *timestamp_ns = (uint64_t)event.ts.tv_sec * 1000000000u + (uint64_t)event.ts.tv_nsec;
  return 0;
}

int cgpiod_get_value(cgpiod_line *line) {
  return gpiod_line_get_value(line->line);
}

void cgpiod_release(cgpiod_line *line) {
  if (!line) return;
  gpiod_line_release(line->line);
  gpiod_chip_close(line->chip);
  free(line);
}

const char *cgpiod_library_version(void) { return gpiod_version_string(); }

#else  // libgpiod v2

struct cgpiod_line {
  struct gpiod_chip *chip;
  struct gpiod_line_request *request;
  struct gpiod_edge_event_buffer *events;
  unsigned int offset;
};

// v2 opens chips by path only: "gpiochip0" and "0" become /dev/gpiochip0.
static struct gpiod_chip *open_chip(const char *chip) {
  char path[64];
  if (strchr(chip, '/')) return gpiod_chip_open(chip);
  const char *digits = chip;
  while (*digits >= '0' && *digits <= '9') digits++;
  int all_digits = *chip && !*digits;
  if (snprintf(path, sizeof path, all_digits ? "/dev/gpiochip%s" : "/dev/%s", chip) >=
      (int)sizeof path) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  return gpiod_chip_open(path);
}

cgpiod_line *cgpiod_request_events(const char *chip, unsigned int offset,
                                   int edge, int bias, const char *consumer) {
  enum gpiod_line_edge detection;
  enum gpiod_line_bias line_bias;
  switch (edge) {
  case CGPIOD_EDGE_RISING: detection = GPIOD_LINE_EDGE_RISING; break;
  case CGPIOD_EDGE_FALLING: detection = GPIOD_LINE_EDGE_FALLING; break;
  case CGPIOD_EDGE_BOTH: detection = GPIOD_LINE_EDGE_BOTH; break;
  default: errno = EINVAL; return NULL;
  }
  switch (bias) {
  case CGPIOD_BIAS_AS_IS: line_bias = GPIOD_LINE_BIAS_AS_IS; break;
  case CGPIOD_BIAS_DISABLED: line_bias = GPIOD_LINE_BIAS_DISABLED; break;
  case CGPIOD_BIAS_PULL_UP: line_bias = GPIOD_LINE_BIAS_PULL_UP; break;
  case CGPIOD_BIAS_PULL_DOWN: line_bias = GPIOD_LINE_BIAS_PULL_DOWN; break;
  default: errno = EINVAL; return NULL;
  }
  cgpiod_line *result = calloc(1, sizeof *result);
  struct gpiod_line_settings *settings = NULL;
  struct gpiod_line_config *line_config = NULL;
  struct gpiod_request_config *request_config = NULL;
  if (!result) return NULL;
  result->offset = offset;
  result->chip = open_chip(chip);
  if (!result->chip) goto fail;
  settings = gpiod_line_settings_new();
  line_config = gpiod_line_config_new();
  request_config = gpiod_request_config_new();
  result->events = gpiod_edge_event_buffer_new(1);
  if (!settings || !line_config || !request_config || !result->events) goto fail;
  if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0 ||
      gpiod_line_settings_set_edge_detection(settings, detection) < 0 ||
      gpiod_line_settings_set_bias(settings, line_bias) < 0)
    goto fail;
  if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) < 0) goto fail;
  gpiod_request_config_set_consumer(request_config, consumer);
  result->request = gpiod_chip_request_lines(result->chip, request_config, line_config);
  if (!result->request) goto fail;
  gpiod_line_settings_free(settings);
  gpiod_line_config_free(line_config);
  gpiod_request_config_free(request_config);
  return result;
fail:;
  int saved = errno;
  if (settings) gpiod_line_settings_free(settings);
  if (line_config) gpiod_line_config_free(line_config);
  if (request_config) gpiod_request_config_free(request_config);
  if (result->events) gpiod_edge_event_buffer_free(result->events);
  if (result->chip) gpiod_chip_close(result->chip);
  free(result);
  errno = saved;
  return NULL;
}

int cgpiod_event_fd(cgpiod_line *line) {
  return gpiod_line_request_get_fd(line->request);
}

int cgpiod_read_event(cgpiod_line *line, int *type, uint64_t *timestamp_ns) {
  int count = gpiod_line_request_read_edge_events(line->request, line->events, 1);
  if (count < 0) return -1;
  if (count == 0) {
    errno = EAGAIN;
    return -1;
  }
  struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->events, 0);
  *type = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE
              ? CGPIOD_EVENT_RISING
              : CGPIOD_EVENT_FALLING;
  *timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
  return 0;
}

int cgpiod_get_value(cgpiod_line *line) {
  enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
  if (value == GPIOD_LINE_VALUE_ERROR) return -1;
  return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

void cgpiod_release(cgpiod_line *line) {
  if (!line) return;
  gpiod_line_request_release(line->request);
  gpiod_edge_event_buffer_free(line->events);
  gpiod_chip_close(line->chip);
  free(line);
}

const char *cgpiod_library_version(void) { return gpiod_api_version(); }

#endif
