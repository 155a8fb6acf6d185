# llhttp: Debian ships it only as C sources (package node-llhttp). We compile
# those sources into a static archive with our own flags.
LLHTTP_SRC_DIR ?= /usr/share/llhttp
LLHTTP_INC_DIR ?= /usr/share/include/llhttp
LLHTTP_SRCS := $(wildcard $(LLHTTP_SRC_DIR)/*.c)
LLHTTP_CFLAGS := -std=c17 -O2 -g -fPIC -I$(LLHTTP_INC_DIR) -w

$(BUILD)/deps/llhttp/%.o: $(LLHTTP_SRC_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(LLHTTP_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/deps/libllhttp.a: $(patsubst $(LLHTTP_SRC_DIR)/%.c,$(BUILD)/deps/llhttp/%.o,$(LLHTTP_SRCS))
	@test -n "$(LLHTTP_SRCS)" || { echo "llhttp sources not found in $(LLHTTP_SRC_DIR) (apt-get install node-llhttp)"; exit 1; }
	$(AR) rcs $@ $^
