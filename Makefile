# gazepriv: PGXS is the build of record for the module, its install, pg_regress and isolation tests.
# CMakeLists.txt builds the same sources for the core unit tests, benchmarks and IDEs.

EXTVERSION := $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" extension/gazepriv.control)

MODULE_big = gazepriv
MODULEDIR  = extension
DATA       = extension/gazepriv.control $(wildcard extension/gazepriv--*--*.sql)
# The install script is generated from one fragment per area, in file-name order.
INSTALL_PARTS = $(sort $(wildcard extension/install/*.sql))
DATA_built = extension/gazepriv--$(EXTVERSION).sql

SRCS = $(sort $(wildcard src/core/*/*.cpp src/pg/*.cpp src/pg/*/*.cpp))
OBJS = $(SRCS:.cpp=.o)

PG_CPPFLAGS = -Isrc -isystem /usr/include/eigen3 -DEIGEN_DONT_PARALLELIZE -DGAZEPRIV_VERSION='"$(EXTVERSION)"'
PG_CXXFLAGS = -std=c++17 -O2 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-register \
              $(if $(filter 1,$(WERROR)),-Werror)
SHLIB_LINK  = -lfftw3 -lfftw3f -lcrypto -lz -lpng16 -ljpeg -lpq -lstdc++ -lm
# No LLVM bitcode for the JIT: it would need clang for C++ and gains nothing for these functions.
override with_llvm = no

REGRESS       := $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS   = --load-extension=gazepriv --temp-instance=./tmp_check --temp-config=test/regress.conf
ISOLATION     := $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=output_iso --load-extension=gazepriv \
                 --temp-instance=./tmp_check_iso --temp-config=test/regress.conf

# Tests run in the C locale, whatever the environment, so that text ordering in expected files is stable.
NO_LOCALE = 1

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# After the include, so that PGXS's `all` stays the default goal.
extension/gazepriv--$(EXTVERSION).sql: $(INSTALL_PARTS)
	cat $^ > $@

# The objects compiled with GAZEPRIV_VERSION follow the control file's version.
src/pg/boundary/guard.o src/pg/module.o: extension/gazepriv.control

# Header dependencies: rebuild objects when a header they include changes.
override CXXFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d) output_iso tmp_check_iso

FORMATTED = $(sort $(wildcard src/*/*.cpp src/*/*/*.cpp src/*/*/*.hpp test/unit/*.hpp test/unit/*/*.cpp test/audit/*.cpp test/audit/*.hpp bench/*/*.cpp bench/*/*.hpp))
.PHONY: format format-check
format:
	clang-format -i $(FORMATTED)
format-check:
	clang-format --dry-run -Werror $(FORMATTED)
