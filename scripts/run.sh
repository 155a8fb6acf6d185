#!/usr/bin/env bash
# Runs build/taskexec in the foreground for local development (what `make run` does after
# installing packages and building).
#
# Without TE_DATABASE_URL it starts a private PostgreSQL under .run/pg (initdb on first
# run), listening on a unix socket in that directory and on 127.0.0.1 at a free port kept
# in .run/pg.port, creates the database `taskexec`, and stops that PostgreSQL again when
# taskexec exits (Ctrl-C stops taskexec cleanly first). A development API key and a secret
# encryption key are generated on first run (.run/api-key, .run/secret-key, mode 0600) and
# reused; variables you export yourself (TE_API_KEYS, TE_API_KEYS_FILE,
# TE_SECRET_ENCRYPTION_KEY, TE_LISTEN_ADDR, TE_DATABASE_URL, ...) win.
#
# Local stream targets, to try KAFKA and REDIS_STREAM endpoints without installing Kafka or
# configuring Redis (`make run KAFKA=1 REDIS=1` sets these; 1/yes/true/on enables):
#   TE_RUN_KAFKA=1  starts build/tools/kafka_mock_broker (`make tools`), a Kafka-protocol
#                   broker on librdkafka's mock cluster that keeps messages in memory, with
#                   topic `events` (3 partitions). Its address (a new port on every run) is
#                   written to .run/kafka.bootstrap, its diagnostics to .run/kafka.log.
#   TE_RUN_REDIS=1  starts a private redis-server on 127.0.0.1 at a free port kept in
#                   .run/redis.port, without persistence (working directory .run/redis, log
#                   .run/redis.log); its URL is written to .run/redis.url.
# Each runs in its own session like PostgreSQL, is shown in the banner with a ready-to-paste
# endpoint, job and read-back command, and is stopped (SIGTERM, then waited for) when
# taskexec exits or when startup fails; its .run/*.bootstrap or .run/*.url file is removed then.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
run_dir=$repo/.run
bin=${TE_BIN:-$repo/build/taskexec}

say() { printf 'run: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# flag NAME: 1 when the environment variable NAME is 1, yes, true or on; 0 when it is unset,
# empty, 0, no, false or off.
flag() {
    local v=${!1:-}
    case $v in
        1 | yes | true | on) echo 1 ;;
        "" | 0 | no | false | off) echo 0 ;;
        *) die "$1=$v: expected 1 (on) or 0 (off)" ;;
    esac
}

[[ -x $bin ]] || die "$bin not found: build it with \`make\`"
run_kafka=$(flag TE_RUN_KAFKA)
run_redis=$(flag TE_RUN_REDIS)
kafka_broker=$repo/build/tools/kafka_mock_broker
kafka_topic=events
redis_stream=events
# Checked before anything is started, so that a missing program fails fast.
if ((run_kafka)); then
    [[ -x $kafka_broker ]] || die "$kafka_broker not found: build it with \`make tools\`"
fi
if ((run_redis)); then
    for prog in redis-server redis-cli; do
        command -v "$prog" >/dev/null 2>&1 ||
            die "$prog not found: \`make run REDIS=1\` installs it (Debian packages redis-server, redis-tools)"
    done
fi
mkdir -p "$run_dir"

# -- keys -------------------------------------------------------------------------------

random_hex() { # bytes
    if command -v openssl >/dev/null 2>&1; then
        openssl rand -hex "$1"
    else
        od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
    fi
}

# read_or_create FILE VALUE: FILE's content; FILE (mode 0600) is written with VALUE only when
# it does not exist yet, so keys survive from one run to the next.
read_or_create() {
    if [[ ! -s $1 ]]; then
        (umask 077 && printf '%s\n' "$2" >"$1.tmp") && mv "$1.tmp" "$1"
    fi
    chmod 600 "$1"
    tr -d ' \r\n' <"$1"
}

dev_api_key=$(read_or_create "$run_dir/api-key" "te_dev_$(random_hex 16)")
dev_secret_key=$(read_or_create "$run_dir/secret-key" "$(random_hex 32)")
[[ $dev_api_key =~ ^te_dev_[0-9a-f]{32}$ ]] || die "$run_dir/api-key is malformed; delete it to get a new one"
[[ $dev_secret_key =~ ^[0-9a-f]{64}$ ]] || die "$run_dir/secret-key is malformed; delete it to get a new one"

if [[ -z ${TE_API_KEYS:-} && -z ${TE_API_KEYS_FILE:-} ]]; then
    export TE_API_KEYS=$dev_api_key
    api_key_note="(.run/api-key)"
elif [[ -n ${TE_API_KEYS:-} ]]; then
    api_key_note="(from your TE_API_KEYS)"
else
    api_key_note="(first key of your TE_API_KEYS_FILE)"
fi
if [[ -n ${TE_API_KEYS:-} ]]; then
    shown_api_key=${TE_API_KEYS%%,*}
else
    shown_api_key=$(grep -m1 -v '^[[:space:]]*$' "$TE_API_KEYS_FILE" | tr -d ' \r' || true)
fi
if [[ -z ${TE_SECRET_ENCRYPTION_KEY:-} ]]; then
    export TE_SECRET_ENCRYPTION_KEY=$dev_secret_key
    shown_secret_key="$dev_secret_key  (.run/secret-key)"
else
    shown_secret_key="(your TE_SECRET_ENCRYPTION_KEY, not shown)"
fi
export TE_LISTEN_ADDR=${TE_LISTEN_ADDR:-127.0.0.1:8080}

# -- private PostgreSQL -------------------------------------------------------------------

pg_started=0 # 1 once we own a running PostgreSQL that must be stopped at exit
pg_bin=
pg_data=
as_pg=()

stop_pg() {
    ((pg_started)) || return 0
    pg_started=0
    say "stopping PostgreSQL"
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w -t 60 stop >/dev/null ||
        say "warning: pg_ctl stop failed (log: $pg_dir/postgres.log)"
}

# -- background helpers (Kafka test broker, redis-server) ---------------------------------

kafka_pid= # set while we own a running process that must be stopped at exit
redis_pid=

# alive PID: the process exists and has not exited (a zombie does not count).
alive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) } # the state follows the command name, which may hold spaces
    [[ -n $stat && ${stat%% *} != Z ]]
}

# stop_child NAME PID: SIGTERM, wait up to 10 s for it to exit (then SIGKILL), and reap it.
stop_child() {
    local name=$1 pid=$2 i
    if alive "$pid"; then
        say "stopping $name"
        kill -TERM "$pid" 2>/dev/null || true
        for i in $(seq 100); do
            alive "$pid" || break
            if ((i == 100)); then
                say "warning: $name (pid $pid) did not stop within 10 s; killing it"
                kill -KILL "$pid" 2>/dev/null || true
            fi
            sleep 0.1
        done
    fi
    wait "$pid" 2>/dev/null || true
}

stop_kafka() {
    [[ -n $kafka_pid ]] || return 0
    stop_child "the Kafka test broker" "$kafka_pid"
    kafka_pid=
    rm -f "$run_dir/kafka.bootstrap" "$run_dir/kafka.out"
}

stop_redis() {
    [[ -n $redis_pid ]] || return 0
    stop_child "redis-server" "$redis_pid"
    redis_pid=
    rm -f "$run_dir/redis.url"
}

# Stops whatever this script started; also runs when startup fails halfway. Signals are
# ignored meanwhile so that a second Ctrl-C cannot cut the cleanup short (every step has a
# time limit).
stop_all() {
    trap '' INT TERM HUP
    stop_kafka
    stop_redis
    stop_pg
}
trap stop_all EXIT

port_in_use() { # port: something accepts connections on 127.0.0.1:port
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pick_port NAME: a free port on 127.0.0.1, preferably the one kept in .run/NAME.port from an
# earlier run (so that addresses stay the same); the choice is written there.
pick_port() {
    local p file=$run_dir/$1.port
    if [[ -s $file ]]; then
        p=$(<"$file")
        if [[ $p =~ ^[0-9]+$ ]] && ! port_in_use "$p"; then
            echo "$p"
            return
        fi
    fi
    for _ in $(seq 200); do
        p=$((20000 + RANDOM % 40000))
        if ! port_in_use "$p"; then
            echo "$p" >"$file"
            echo "$p"
            return
        fi
    done
    die "no free port for $1"
}

# The pid in postmaster.pid if that process is a live (not zombie) PostgreSQL, else nothing.
live_postmaster() {
    local pidfile=$pg_data/postmaster.pid pid comm state
    [[ -f $pidfile ]] || return 0
    pid=$(head -n1 "$pidfile")
    [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/stat ]] || return 0
    comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
    if [[ ($comm == postgres || $comm == postmaster) && $state != Z ]]; then
        echo "$pid"
    fi
}

# Removes a postmaster.pid (and socket lock files) left by a PostgreSQL that was killed.
clear_stale_pid() {
    [[ -f $pg_data/postmaster.pid ]] || return 0
    say "removing stale postmaster.pid (PostgreSQL $(head -n1 "$pg_data/postmaster.pid") is not running)"
    rm -f "$pg_data/postmaster.pid" "$pg_dir"/.s.PGSQL.*.lock
}

start_private_pg() {
    pg_bin=${TE_PG_BINDIR:-}
    if [[ -z $pg_bin ]]; then
        pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | grep -v '\*' | sort -V | tail -n1 || true)
        [[ -n $pg_bin ]] || pg_bin=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/x)")
    fi
    [[ -x $pg_bin/pg_ctl ]] || die "PostgreSQL server binaries not found (install postgresql or set TE_PG_BINDIR)"

    pg_dir=$run_dir/pg
    if ((EUID == 0)); then
        id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user (install postgresql)"
        as_pg=(runuser -u postgres --)
        # PostgreSQL refuses to run as root; the postgres user must reach the data directory.
        if [[ ! -L $pg_dir ]] && ! "${as_pg[@]}" test -x "$run_dir"; then
            local hash alt
            hash=$(printf '%s' "$repo" | sha256sum | cut -c1-12)
            alt=/var/tmp/taskexec-$hash/pg
            mkdir -p "$alt"
            chmod 711 "$(dirname "$alt")"
            if [[ -d $pg_dir ]]; then
                rmdir "$pg_dir" 2>/dev/null || die "$pg_dir exists but the postgres user cannot reach it; move it away"
            fi
            ln -sfn "$alt" "$pg_dir"
            say "the postgres user cannot reach $run_dir; PostgreSQL data lives in $alt (symlinked as .run/pg)"
        fi
        if [[ -L $pg_dir ]]; then
            mkdir -p "$(readlink -f "$pg_dir")"
        fi
    fi
    mkdir -p "$pg_dir"
    pg_dir=$(cd "$pg_dir" && pwd -P)
    if ((EUID == 0)); then
        chown postgres:postgres "$pg_dir"
    fi
    chmod 700 "$pg_dir"
    pg_data=$pg_dir/data
    local sock_path_len=$((${#pg_dir} + 20))
    ((sock_path_len < 107)) || die "$pg_dir is too long for a unix socket path; set TE_DATABASE_URL instead"

    if [[ ! -f $pg_data/PG_VERSION ]]; then
        say "initdb $pg_data"
        "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_data" -U postgres -A trust -E UTF8 --locale=C \
            --no-instructions >"$pg_dir/initdb.log" 2>&1 ||
            { cat "$pg_dir/initdb.log" >&2; die "initdb failed"; }
    fi
    # A data directory from another major version cannot be started by these binaries.
    local ver
    ver=$(<"$pg_data/PG_VERSION")
    if [[ -x /usr/lib/postgresql/$ver/bin/pg_ctl && -z ${TE_PG_BINDIR:-} ]]; then
        pg_bin=/usr/lib/postgresql/$ver/bin
    fi

    local running
    running=$(live_postmaster)
    if [[ -n $running ]]; then
        # Left running by an earlier run that was killed: adopt it (and stop it at the end).
        pg_port=$(sed -n 4p "$pg_data/postmaster.pid")
        say "PostgreSQL (pid $running) already running on port $pg_port, left by an earlier run; using it"
        pg_started=1
        local i
        for i in $(seq 100); do
            "${as_pg[@]}" "$pg_bin/pg_isready" -q -h "$pg_dir" -p "$pg_port" && break
            ((i < 100)) || die "PostgreSQL pid $running does not answer; stop it: pg_ctl -D $pg_data stop"
            sleep 0.1
        done
    else
        clear_stale_pid
        pg_port=$(pick_port pg)
        echo "$pg_port" >"$run_dir/pg.port"
        say "starting PostgreSQL on 127.0.0.1:$pg_port (log: .run/pg/postgres.log)"
        # Own session: a Ctrl-C on the terminal reaches taskexec, not PostgreSQL, so taskexec
        # can finish its shutdown against a live database before we stop PostgreSQL.
        if ! setsid -w "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_dir/postgres.log" -w -t 60 \
            -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$pg_dir'" \
            start >/dev/null; then
            tail -n 20 "$pg_dir/postgres.log" >&2 || true
            die "PostgreSQL did not start"
        fi
        pg_started=1
    fi

    local has_db
    has_db=$("${as_pg[@]}" "$pg_bin/psql" -h "$pg_dir" -p "$pg_port" -U postgres -d postgres -XtAq \
        -c "SELECT 1 FROM pg_database WHERE datname = 'taskexec'")
    if [[ $has_db != 1 ]]; then
        say "creating database taskexec"
        "${as_pg[@]}" "$pg_bin/createdb" -h "$pg_dir" -p "$pg_port" -U postgres taskexec
    fi
    export TE_DATABASE_URL="postgresql://postgres@127.0.0.1:$pg_port/taskexec"
    db_note="private PostgreSQL 127.0.0.1:$pg_port, database taskexec (data: $pg_data)"
}

if [[ -z ${TE_DATABASE_URL:-} ]]; then
    start_private_pg
else
    db_note="TE_DATABASE_URL from your environment"
fi

# -- local stream targets -------------------------------------------------------------------

# still_starting PID LOG WHAT DEADLINE: one turn of a wait for a local target to be ready;
# dies with the end of its log when it exited or DEADLINE (in $SECONDS) has passed.
still_starting() {
    local pid=$1 log=$2 what=$3 deadline=$4
    if ! alive "$pid"; then
        tail -n 20 "$log" >&2 || true
        die "$what exited before it was ready (log: .run/${log##*/})"
    fi
    if ((SECONDS >= deadline)); then
        tail -n 20 "$log" >&2 || true
        die "$what was not ready within 15 s (log: .run/${log##*/})"
    fi
    sleep 0.1
}

start_kafka() {
    local out=$run_dir/kafka.out log=$run_dir/kafka.log line deadline=$((SECONDS + 15))
    rm -f "$run_dir/kafka.bootstrap" "$out"
    say "starting the Kafka test broker (log: .run/kafka.log)"
    # Own session, like PostgreSQL: Ctrl-C reaches taskexec only, and the broker is stopped
    # after taskexec is done with it. (A background job of a non-interactive script leads no
    # process group, so setsid execs the broker in place and $! is the broker's pid.)
    setsid "$kafka_broker" --topic "$kafka_topic:3" </dev/null >"$out" 2>"$log" &
    kafka_pid=$!
    # Its first line on stdout is "BOOTSTRAP 127.0.0.1:PORT" (read succeeds on a whole line).
    until IFS= read -r line 2>/dev/null <"$out"; do
        still_starting "$kafka_pid" "$log" "the Kafka test broker" "$deadline"
    done
    rm -f "$out"
    [[ $line =~ ^BOOTSTRAP\ ([0-9.:,]+)$ ]] ||
        die "the Kafka test broker printed '$line' instead of 'BOOTSTRAP 127.0.0.1:PORT'"
    kafka_bootstrap=${BASH_REMATCH[1]}
    printf '%s\n' "$kafka_bootstrap" >"$run_dir/kafka.bootstrap"
}

start_redis() {
    local dir=$run_dir/redis log=$run_dir/redis.log deadline=$((SECONDS + 15)) port
    port=$(pick_port redis)
    rm -f "$run_dir/redis.url"
    mkdir -p "$dir"
    say "starting redis-server on 127.0.0.1:$port (log: .run/redis.log)"
    # No config file: only these settings; nothing is written to disk. Own session, as above.
    setsid redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
        --dir "$dir" --daemonize no </dev/null >"$log" 2>&1 &
    redis_pid=$!
    until [[ $(timeout --foreground 2 redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null) == PONG ]] &&
        alive "$redis_pid"; do
        still_starting "$redis_pid" "$log" "redis-server" "$deadline"
    done
    redis_url=redis://127.0.0.1:$port
    redis_port=$port
    printf '%s\n' "$redis_url" >"$run_dir/redis.url"
}

if ((run_kafka)); then
    start_kafka
fi
if ((run_redis)); then
    start_redis
fi

# -- taskexec -------------------------------------------------------------------------------

listen_host=${TE_LISTEN_ADDR%:*}
listen_port=${TE_LISTEN_ADDR##*:}
[[ $listen_host == 0.0.0.0 || $listen_host == "[::]" || -z $listen_host ]] && listen_host=127.0.0.1
base_url="http://$listen_host:$listen_port"

auth="-H \"Authorization: Bearer $shown_api_key\""
cat <<EOF

  taskexec      $base_url
  API key       $shown_api_key  $api_key_note
  secret key    $shown_secret_key
  database      $db_note
EOF
if ((run_kafka)); then
    echo "  kafka         $kafka_bootstrap  (test broker, topic $kafka_topic, in memory; .run/kafka.bootstrap)"
fi
if ((run_redis)); then
    echo "  redis         $redis_url  (private redis-server, no persistence; .run/redis.url)"
fi
cat <<EOF

  try:  curl $auth $base_url/payload-specs
  stop: Ctrl-C

EOF
# Ready-to-paste examples: an endpoint, a job that sends one message through it, and a
# command that reads the message back. $RANDOM gives every pasted job a new idempotency key.
if ((run_kafka)); then
    cat <<EOF
  Kafka: create an endpoint, send a message, read it back
    curl -s $auth -X POST $base_url/endpoints -d '{"name":"local-kafka","type":"KAFKA","spec":{"bootstrap_servers":"$kafka_bootstrap","topic":"$kafka_topic","value_template":{"message":"{{input.message}}"}}}'
    curl -s $auth -X POST $base_url/jobs -d '{"endpoint":"local-kafka","trigger":"IMMEDIATE","idempotency_key":"try-'\$RANDOM'","input":{"message":"hello from taskexec"}}'
    kcat -b $kafka_bootstrap -C -t $kafka_topic -e -o beginning
  The broker gets a new port on every run: when local-kafka exists already, send the same
  endpoint body with -X PUT $base_url/endpoints/local-kafka instead.

EOF
fi
if ((run_redis)); then
    cat <<EOF
  Redis: create an endpoint, send a message, read it back
    curl -s $auth -X POST $base_url/endpoints -d '{"name":"local-redis","type":"REDIS_STREAM","spec":{"redis_url":"$redis_url","stream":"$redis_stream","fields_template":{"message":"{{input.message}}"}}}'
    curl -s $auth -X POST $base_url/jobs -d '{"endpoint":"local-redis","trigger":"IMMEDIATE","idempotency_key":"try-'\$RANDOM'","input":{"message":"hello from taskexec"}}'
    redis-cli -p $redis_port XRANGE $redis_stream - +

EOF
fi

# taskexec runs as a background job so that this script can wait for it, forward SIGTERM
# and still stop PostgreSQL and the stream targets afterwards. Background jobs of a script
# start with SIGINT ignored; the subshell restores it so that Ctrl-C (SIGINT to the whole
# foreground process group) reaches taskexec directly.
interrupted=0
(
    trap - INT QUIT
    exec "$bin" "$@"
) &
te_pid=$!
trap 'interrupted=1' INT
trap 'interrupted=1; kill -TERM "$te_pid" 2>/dev/null || true' TERM HUP

# wait returns early when a trapped signal arrives; wait again until taskexec is gone.
while kill -0 "$te_pid" 2>/dev/null; do
    wait "$te_pid" 2>/dev/null || true
done
rc=0
wait "$te_pid" 2>/dev/null || rc=$? # bash keeps the exit status of a finished job
trap - INT TERM HUP

if ((interrupted)); then
    say "taskexec stopped (exit code $rc)"
    case $rc in 0 | 130 | 143) rc=0 ;; esac
else
    say "taskexec exited with code $rc"
fi
stop_all
exit "$rc"
