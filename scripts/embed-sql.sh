#!/usr/bin/env bash
# Writes a C file embedding schema/NNN_name.sql migrations (in order) into the binary.
# Usage: scripts/embed-sql.sh schema/*.sql > build/gen/migrations.c
set -euo pipefail
echo '/* Generated from the schema/ migrations by scripts/embed-sql.sh; do not edit. */'
echo '#include "db/migrate.h"'
echo
echo 'const struct db_migration db_migrations[] = {'
for f in "$@"; do
    base=$(basename "$f" .sql)
    version=$((10#${base%%_*}))
    name=${base#*_}
    printf '    {%d, "%s",\n' "$version" "$name"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/     "/' -e 's/$/\\n"/' "$f"
    printf '    },\n'
done
echo '};'
echo 'const int db_migrations_count = (int)(sizeof(db_migrations) / sizeof(db_migrations[0]));'
