# taskexec — build, run and test.
#   make            build build/taskexec
#   make run        install missing packages, build, start on a private PostgreSQL
#                   KAFKA=1: also a Kafka test broker; REDIS=1: also a private redis-server
#   make test       install missing packages, run every test (also under ASan+UBSan)
#   make bench      benchmarks (bench/)
#   make fmt / lint

CC ?= gcc
SAN ?=
BUILD ?= build
ifeq ($(SAN),1)
BUILD := build/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

PKGS := libuv libpq libcjson rdkafka hiredis libsodium libcurl
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS := -std=c17 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -Isrc -I/usr/share/include/llhttp \
          $(SAN_FLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(SAN_FLAGS)
LDLIBS = $(PKG_LIBS) -lm

SRCS := $(shell find src -name '*.c' | sort)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/gen/migrations.o
MIGRATIONS := $(sort $(wildcard schema/*.sql))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))

PYTEST ?= /usr/bin/python3 -m pytest

.PHONY: all deps run test unit integration bench fmt lint clean asan tools

all: $(BUILD)/taskexec

include deps/llhttp.mk

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# schema/*.sql is embedded in the binary, so a deployed taskexec needs no files beside it.
$(BUILD)/gen/migrations.c: $(MIGRATIONS) scripts/embed-sql.sh
	@mkdir -p $(dir $@)
	scripts/embed-sql.sh $(MIGRATIONS) > $@

$(BUILD)/obj/gen/migrations.o: $(BUILD)/gen/migrations.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# Recreated from scratch: several objects share a base name (db/conn.o, http/conn.o), and
# ar's replace mode would otherwise overwrite one with the other.
$(BUILD)/libte.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/taskexec: $(BUILD)/obj/main.o $(BUILD)/libte.a $(BUILD)/deps/libllhttp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libte.a $(BUILD)/deps/libllhttp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $^ $(LDFLAGS) $(LDLIBS) -lcmocka

$(BUILD)/tools/%: tests/tools/%.c $(BUILD)/libte.a $(BUILD)/deps/libllhttp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

tools: $(TOOL_BINS)

deps:
	@scripts/install-deps.sh test

# KAFKA=1 / REDIS=1 (or TE_RUN_KAFKA / TE_RUN_REDIS in the environment) also start local
# stream targets; see scripts/run.sh.
run: RUN_KAFKA = $(or $(KAFKA),$(TE_RUN_KAFKA))
run: RUN_REDIS = $(or $(REDIS),$(TE_RUN_REDIS))
run: RUN_ENV = TE_RUN_KAFKA='$(RUN_KAFKA)' TE_RUN_REDIS='$(RUN_REDIS)'
run:
	@$(RUN_ENV) scripts/install-deps.sh run
	@$(MAKE) --no-print-directory all \
	    $(if $(filter 1 yes true on,$(RUN_KAFKA)),$(BUILD)/tools/kafka_mock_broker)
	@$(RUN_ENV) scripts/run.sh

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

integration: $(BUILD)/taskexec tools
	TE_BIN=$(abspath $(BUILD)/taskexec) TE_TOOLS=$(abspath $(BUILD)/tools) $(PYTEST) -q tests/integration

asan:
	@$(MAKE) --no-print-directory SAN=1 unit integration

test:
	@scripts/install-deps.sh test
	@scripts/test.sh

bench: all
	@$(MAKE) --no-print-directory -C bench

fmt:
	clang-format -i $(SRCS) $(shell find src tests -name '*.h') $(UNIT_SRCS) $(TOOL_SRCS)

lint:
	clang-format --dry-run --Werror $(SRCS) $(shell find src -name '*.h')
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	    --suppress=missingIncludeSystem --inline-suppr -D_GNU_SOURCE -Isrc $(SRCS)

clean:
	rm -rf build

-include $(OBJS:.o=.d)
