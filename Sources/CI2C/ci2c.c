#include "ci2c.h"
#include <sys/ioctl.h>

int ci2c_rdwr(int fd, struct i2c_msg *messages, uint32_t count) {
  struct i2c_rdwr_ioctl_data data = {.msgs = messages, .nmsgs = count};
  return ioctl(fd, I2C_RDWR, &data);
}

int ci2c_funcs(int fd, unsigned long *functionality) {
  return ioctl(fd, I2C_FUNCS, functionality);
}

int ci2c_set_address(int fd, uint16_t address) {
  return ioctl(fd, I2C_SLAVE, (unsigned long)address);
}

int ci2c_set_timeout(int fd, unsigned long tens_of_ms) {
  return ioctl(fd, I2C_TIMEOUT, tens_of_ms);
}

int ci2c_set_retries(int fd, unsigned long retries) {
  return ioctl(fd, I2C_RETRIES, retries);
}
