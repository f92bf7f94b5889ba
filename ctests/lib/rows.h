/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven tests whose rows carry values worked out by hand: a row is
 * held against an independent reference before the code under test, so
 * that a wrong row is reported as the row's error, not the code's.
 */
#ifndef LOPE_ROWS_H
#define LOPE_ROWS_H

#include <stdint.h>

/*
 * 1 when row @line's hand value @want is @ref, the reference's; else FAIL
 * @name with both and return 0.
 */
int row_agrees(const char *name, int line, uint64_t want, uint64_t ref);

#endif /* LOPE_ROWS_H */
