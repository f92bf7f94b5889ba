/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work of a known size, and where it runs: the hardware tests' loop of
 * exactly 2 user instructions an iteration, and pinning the calling
 * thread to one cpu (the hybrid tests move it between core types).
 */
#ifndef LOPE_WORK_H
#define LOPE_WORK_H

/* @n iterations of 2 user instructions each; 0 returns at once. */
void loop2(unsigned long n);

/* Run the calling thread on @cpu alone: 0, or -errno. */
int pin_to_cpu(int cpu);

#endif /* LOPE_WORK_H */
