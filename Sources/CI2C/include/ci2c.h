// The C boundary to Linux I2C: the i2c-dev character device ioctls
// (<linux/i2c-dev.h>, <linux/i2c.h>) and libi2c's SMBus helpers
// (<i2c/smbus.h>, Debian libi2c-dev). The ioctl request macros and the
// variadic ioctl() are not importable into Swift, so each request has a
// fixed-signature wrapper here; everything else is used directly.
#ifndef CI2C_H
#define CI2C_H

#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include <stdint.h>

/// I2C_RDWR (0x0707): combined transfer of `count` messages with one STOP.
/// Returns the number of messages transferred, or -1 with errno set.
int ci2c_rdwr(int fd, struct i2c_msg *messages, uint32_t count);

/// I2C_FUNCS (0x0705): the adapter's functionality mask.
/// Returns 0, or -1 with errno set.
int ci2c_funcs(int fd, unsigned long *functionality);

/// I2C_SLAVE (0x0703): the target address of later read()/write()/SMBus calls.
int ci2c_set_address(int fd, uint16_t address);

/// I2C_TIMEOUT (0x0702): adapter timeout, in units of 10 ms.
int ci2c_set_timeout(int fd, unsigned long tens_of_ms);

/// I2C_RETRIES (0x0701): how often the adapter retries on arbitration loss.
int ci2c_set_retries(int fd, unsigned long retries);

/// The request numbers, for tests and traces.
static const unsigned long ci2c_request_rdwr = I2C_RDWR;
static const unsigned long ci2c_request_funcs = I2C_FUNCS;
static const unsigned long ci2c_request_slave = I2C_SLAVE;
static const uint16_t ci2c_flag_read = I2C_M_RD;
static const unsigned long ci2c_func_i2c = I2C_FUNC_I2C;
static const unsigned long ci2c_func_smbus_i2c_block =
    I2C_FUNC_SMBUS_I2C_BLOCK;

#endif
