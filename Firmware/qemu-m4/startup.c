// Start-up of the firmware on QEMU's mps2-an386 board (a Cortex-M4; also
// the Cortex-M0+ build, whose instruction set the M4 runs): the vector
// table, RAM set-up, the FPU and SysTick, semihosting calls, the run
// state's static storage, and the few C-level hooks the Swift code and the
// embedded runtime expect.
#include <stddef.h>
#include <stdint.h>

extern int firmware_main(void);

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern uint32_t __stack_bottom, __stack_top;

#define STACK_PAINT 0xC0FFEE11u

// ARM semihosting: operation in r0, argument in r1, result in r0.
int semihost_call(int op, void *arg) {
  register int r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

// Ends the emulation with `status` as QEMU's exit status (SYS_EXIT_EXTENDED,
// ADP_Stopped_ApplicationExit).
__attribute__((noreturn)) void semihost_exit(int status) {
  uint32_t block[2] = {0x20026, (uint32_t)status};
  semihost_call(0x20, block);
  for (;;) {}
}

static void console(const char *text) { semihost_call(0x04, (void *)text); }

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)
#define CPACR (*(volatile uint32_t *)0xE000ED88)

// SysTick's current value: counts down from 2^24 - 1 at the core clock
// (under QEMU's -icount, virtual time: a fixed number of instructions per tick).
uint32_t systick_now(void) { return SYST_CVR & 0xFFFFFF; }

// 2 * n instructions (subs, bne) plus a few: the yardstick of systick_now.
__attribute__((naked, noinline)) void instruction_loop(uint32_t n) {
  __asm__ volatile(
      "1: subs r0, r0, #1\n"
      "   bne 1b\n"
      "   bx lr\n");
}

// Bytes of the stack ever used: from its top down to the lowest word that
// no longer holds the paint.
uint32_t stack_high_water(void) {
  uint32_t *p = &__stack_bottom;
  while (p < &__stack_top && *p == STACK_PAINT) p++;
  return (uint32_t)((char *)&__stack_top - (char *)p);
}

// The frame path's stack: stack_mark paints `window` bytes below the
// caller's stack pointer; stack_since_mark says how many of them are used.
static uint32_t *mark;
#define WINDOW_WORDS 2048

void stack_mark(void) {
  __asm__ volatile("mov %0, sp" : "=r"(mark));
  for (uint32_t *s = mark - WINDOW_WORDS; s < mark; s++) *s = STACK_PAINT;
}

uint32_t stack_since_mark(void) {
  uint32_t *p = mark - WINDOW_WORDS;
  while (p < mark && *p == STACK_PAINT) p++;
  return (uint32_t)((char *)mark - (char *)p);
}

uint32_t stack_size(void) { return (uint32_t)((char *)&__stack_top - (char *)&__stack_bottom); }

// The run's state (CoreRunner's CoreRunState: the touch stack, the script's
// setup, the line buffers) in static storage. Reset_Handler clears .bss, and
// an all-zero CoreRunState is a valid empty one (every field is an integer,
// a flag, a Double or an enumeration whose first case is 0); CoreRun.run sets
// it up in place. The Swift side checks that it fits.
#ifndef RUN_STATE_BYTES
#define RUN_STATE_BYTES (128 * 1024)  // build.sh sizes it for the core's capacity
#endif
static uint64_t run_state[RUN_STATE_BYTES / 8];
void *run_state_address(void) { return run_state; }
uint32_t run_state_capacity(void) { return RUN_STATE_BYTES; }

__attribute__((noreturn)) void Reset_Handler(void) {
  uint32_t *src = &__data_load;
  for (uint32_t *d = &__data_start; d < &__data_end;) *d++ = *src++;
  for (uint32_t *b = &__bss_start; b < &__bss_end;) *b++ = 0;
  // Paint the stack below what this function uses.
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t *s = &__stack_bottom; s < sp - 16;) *s++ = STACK_PAINT;
#if __ARM_ARCH >= 7  // a Cortex-M4F; a Cortex-M0+ has none
  CPACR |= 0xFu << 20;  // CP10, CP11: the FPU
  __asm__ volatile("dsb\n isb");
#endif
  SYST_RVR = 0xFFFFFF;
  SYST_CVR = 0;
  SYST_CSR = 5;  // enabled, core clock, no interrupt
  semihost_exit(firmware_main());
}

static void fault(const char *what) {
  console(what);
  semihost_exit(3);
}

void HardFault_Handler(void) { fault("firmware: hard fault\n"); }
void Default_Handler(void) { fault("firmware: unexpected exception\n"); }

// The stack protector the Swift code is compiled with.
uintptr_t __stack_chk_guard = 0x5EC0DE5Au;
__attribute__((noreturn)) void __stack_chk_fail(void) {
  console("firmware: stack smashed\n");
  semihost_exit(3);
}

#if __ARM_ARCH < 7
// A Cortex-M0+ (ARMv6-M) has no exclusive loads and stores, so the compiler
// calls these for the runtime's one-time initialisations (swift_once). One
// core: plain accesses, the compare-and-swap with interrupts masked.
#include <stdbool.h>
uint32_t __atomic_load_4(const volatile void *p, int order) {
  (void)order;
  return *(const volatile uint32_t *)p;
}
void __atomic_store_4(volatile void *p, uint32_t v, int order) {
  (void)order;
  *(volatile uint32_t *)p = v;
}
bool __atomic_compare_exchange_4(volatile void *p, void *expected, uint32_t desired, bool weak, int success,
                                 int failure) {
  (void)weak, (void)success, (void)failure;
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  uint32_t current = *(volatile uint32_t *)p;
  bool swapped = current == *(uint32_t *)expected;
  if (swapped) {
    *(volatile uint32_t *)p = desired;
  } else {
    *(uint32_t *)expected = current;
  }
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
  return swapped;
}
#endif

// Seeds the standard library's hashing (not on the frame path; the board
// has no entropy source, so the seed is fixed).
void arc4random_buf(void *buf, size_t n) {
  for (size_t i = 0; i < n; i++) ((uint8_t *)buf)[i] = (uint8_t)(0x9E + 31 * i);
}

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top),
    Reset_Handler,
    Default_Handler,    // NMI
    HardFault_Handler,  // HardFault
    HardFault_Handler,  // MemManage
    HardFault_Handler,  // BusFault
    HardFault_Handler,  // UsageFault
    0, 0, 0, 0,
    Default_Handler,  // SVCall
    Default_Handler,  // DebugMon
    0,
    Default_Handler,  // PendSV
    Default_Handler,  // SysTick
};
