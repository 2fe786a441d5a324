import CI2C
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The C boundary compiles against the kernel and libi2c headers, links
/// libi2c, and reports errors the way the Linux bus code expects.
@Suite struct CI2CTests {
  @Test func ioctlRequestNumbersAreTheKernels() {
    // <linux/i2c-dev.h>: I2C_SLAVE 0x0703, I2C_FUNCS 0x0705, I2C_RDWR 0x0707.
    #expect(ci2c_request_slave == 0x0703)
    #expect(ci2c_request_funcs == 0x0705)
    #expect(ci2c_request_rdwr == 0x0707)
    #expect(ci2c_flag_read == 0x0001)
    #expect(ci2c_func_i2c == 0x0000_0001)
  }

  @Test func libi2cIsLinkedAndReportsErrno() {
    // On a closed descriptor every call fails with -EBADF, not a crash.
    #expect(i2c_smbus_read_byte_data(-1, 0) == -EBADF)
    var functionality: UInt = 0
    #expect(ci2c_funcs(-1, &functionality) == -1)
    #expect(errno == EBADF)
  }

  @Test func aCombinedTransferOnANonI2CDeviceIsRefused() {
    // /dev/null is not an i2c-dev node: I2C_RDWR fails with ENOTTY.
    let fd = open("/dev/null", O_RDWR)
    defer { close(fd) }
    var buffer: UInt8 = 0
    var message = i2c_msg(addr: 0x2A, flags: ci2c_flag_read, len: 1, buf: &buffer)
    #expect(ci2c_rdwr(fd, &message, 1) == -1)
    #expect(errno == ENOTTY)
  }
}
