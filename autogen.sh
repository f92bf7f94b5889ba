#!/bin/sh
# Regenerate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4
# automake includes these fragments; other parts of the tree provide them,
# an empty one just means that part has nothing to build yet.
for f in ctests/engine/local.mk ctests/papi/local.mk utils/local.mk doc/local.mk; do
	[ -e "$f" ] || { mkdir -p "$(dirname "$f")" && : >"$f"; }
done
exec autoreconf -fi
