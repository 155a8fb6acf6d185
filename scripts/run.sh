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
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
run_dir=$repo/.run
bin=${TE_BIN:-$repo/build/taskexec}

say() { printf 'run: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

[[ -x $bin ]] || die "$bin not found: build it with \`make\`"
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
trap stop_pg EXIT

port_in_use() { # port: something accepts connections on 127.0.0.1:port
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
    local p
    if [[ -s $run_dir/pg.port ]]; then
        p=$(<"$run_dir/pg.port")
        if [[ $p =~ ^[0-9]+$ ]] && ! port_in_use "$p"; then
            echo "$p"
            return
        fi
    fi
    for _ in $(seq 200); do
        p=$((20000 + RANDOM % 40000))
        if ! port_in_use "$p"; then
            echo "$p" >"$run_dir/pg.port"
            echo "$p"
            return
        fi
    done
    die "no free port for PostgreSQL"
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
        pg_port=$(pick_port)
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

# -- taskexec -------------------------------------------------------------------------------

listen_host=${TE_LISTEN_ADDR%:*}
listen_port=${TE_LISTEN_ADDR##*:}
[[ $listen_host == 0.0.0.0 || $listen_host == "[::]" || -z $listen_host ]] && listen_host=127.0.0.1
base_url="http://$listen_host:$listen_port"

cat <<EOF

  taskexec      $base_url
  API key       $shown_api_key  $api_key_note
  secret key    $shown_secret_key
  database      $db_note

  try:  curl -H "Authorization: Bearer $shown_api_key" $base_url/payload-specs
  stop: Ctrl-C

EOF

# taskexec runs as a background job so that this script can wait for it, forward SIGTERM
# and still stop PostgreSQL afterwards. Background jobs of a script start with SIGINT
# ignored; the subshell restores it so that Ctrl-C (SIGINT to the whole foreground process
# group) reaches taskexec directly.
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
stop_pg
exit "$rc"
