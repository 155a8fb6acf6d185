/* kafka_mock_broker — a standalone Kafka-protocol broker for tests, built on librdkafka's
 * mock cluster (rdkafka_mock.h). It speaks enough of the protocol for real clients
 * (librdkafka, kcat, confluent-kafka) to produce, consume, use consumer groups and
 * commit offsets.
 *
 * Usage: kafka_mock_broker [--brokers N] [--topic NAME[:PARTITIONS]]... [--rtt-ms MS]
 *                          [--port 0]
 *
 *   --brokers N                 number of mock brokers (1..16, default 1)
 *   --topic NAME[:PARTITIONS]   pre-create a topic (default 1 partition); repeatable.
 *                               Other topics are auto-created on first use by clients.
 *   --rtt-ms MS                 every broker answers each request MS milliseconds late
 *                               (0..60000, default 0): a slow cluster, for shutdown tests
 *   --port P                    only 0 is accepted: librdkafka 2.0.x has no API to bind a
 *                               mock broker to a fixed port; every broker listens on
 *                               127.0.0.1 on a port chosen by the kernel.
 *
 * The first line on stdout is "BOOTSTRAP 127.0.0.1:PORT[,127.0.0.1:PORT...]" (flushed);
 * nothing else is written to stdout. Diagnostics go to stderr. Runs until SIGTERM or
 * SIGINT, then destroys the cluster and exits 0. Exit 2 on bad usage, 1 on setup failure.
 *
 * Outages on demand, for tests: SIGUSR1 takes every broker down (connections are closed
 * and new ones refused, the listening ports stay reserved), SIGUSR2 brings them back up on
 * the same addresses. The same from lines on stdin: "down", "up", or "down N" / "up N" for
 * broker N alone (1-based). Each change is confirmed on stderr ("brokers down", "broker 2
 * up"); stdin at its end (or /dev/null) just stops being read.
 * Listeners are loopback only (the mock cluster binds 127.0.0.1).
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TOPICS 64
#define MAX_BROKERS 16

struct topic_opt {
    char name[250];
    int partitions;
};

static void usage(void)
{
    fprintf(stderr, "usage: kafka_mock_broker [--brokers N] [--topic NAME[:PARTITIONS]]... "
                    "[--rtt-ms MS] [--port 0]\n");
}

/* Parses a decimal int in [lo, hi]; returns -1 on error. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* The cluster, shared by the signal loop and the stdin reader until shutdown. */
static pthread_mutex_t mc_lock = PTHREAD_MUTEX_INITIALIZER;
static rd_kafka_mock_cluster_t *mc_live;
static int mc_brokers;

/* Takes broker `only` (or, with 0, every broker) down (closing its connections) or back up. */
static void set_brokers(int only, bool up)
{
    pthread_mutex_lock(&mc_lock);
    for (int id = only ? only : 1; mc_live && id <= (only ? only : mc_brokers); id++) {
        rd_kafka_resp_err_t err = up ? rd_kafka_mock_broker_set_up(mc_live, id)
                                     : rd_kafka_mock_broker_set_down(mc_live, id);
        if (err)
            fprintf(stderr, "kafka_mock_broker: broker %d %s: %s\n", id, up ? "up" : "down",
                    rd_kafka_err2str(err));
    }
    if (only)
        fprintf(stderr, "kafka_mock_broker: broker %d %s\n", only, up ? "up" : "down");
    else
        fprintf(stderr, "kafka_mock_broker: brokers %s\n", up ? "up" : "down");
    pthread_mutex_unlock(&mc_lock);
}

/* Reads "down [N]" / "up [N]" lines from stdin until its end. */
static void *control_reader(void *arg)
{
    char line[64], word[8];
    (void)arg;
    while (fgets(line, sizeof line, stdin)) {
        int id = 0, n;
        word[0] = '\0';
        n = sscanf(line, "%7s %d", word, &id);
        bool up = strcmp(word, "up") == 0;
        if (n < 1 || (!up && strcmp(word, "down") != 0) || id < 0 || id > mc_brokers) {
            fprintf(stderr, "kafka_mock_broker: unknown command '%.*s' (down [N], up [N])\n",
                    (int)strcspn(line, "\n"), line);
            continue;
        }
        set_brokers(id, up);
    }
    return NULL;
}

static int parse_topic(const char *arg, struct topic_opt *t)
{
    const char *colon = strrchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    if (len == 0 || len >= sizeof t->name)
        return -1;
    memcpy(t->name, arg, len);
    t->name[len] = '\0';
    t->partitions = 1;
    if (colon && parse_int(colon + 1, 1, 10000, &t->partitions) != 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int brokers = 1, rtt_ms = 0;
    struct topic_opt topics[MAX_TOPICS];
    int ntopics = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (strcmp(a, "--brokers") == 0 && v) {
            if (parse_int(v, 1, MAX_BROKERS, &brokers) != 0) {
                fprintf(stderr, "kafka_mock_broker: bad --brokers '%s' (1..%d)\n", v, MAX_BROKERS);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--topic") == 0 && v) {
            if (ntopics == MAX_TOPICS || parse_topic(v, &topics[ntopics]) != 0) {
                fprintf(stderr,
                        "kafka_mock_broker: bad --topic '%s' (NAME[:PARTITIONS], "
                        "at most %d)\n",
                        v, MAX_TOPICS);
                return 2;
            }
            ntopics++;
            i++;
        } else if (strcmp(a, "--rtt-ms") == 0 && v) {
            if (parse_int(v, 0, 60000, &rtt_ms) != 0) {
                fprintf(stderr, "kafka_mock_broker: bad --rtt-ms '%s' (0..60000)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--port") == 0 && v) {
            int port;
            if (parse_int(v, 0, 65535, &port) != 0 || port != 0) {
                fprintf(stderr,
                        "kafka_mock_broker: --port %s: librdkafka's mock cluster "
                        "cannot bind a fixed port; only 0 (kernel-chosen) is "
                        "supported\n",
                        v);
                return 2;
            }
            i++;
        } else {
            usage();
            return 2;
        }
    }

    /* Block the stop signals before librdkafka starts its threads (they inherit the
     * mask), so that only sigwait() below receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGUSR1);
    sigaddset(&stop, SIGUSR2);
    if (pthread_sigmask(SIG_BLOCK, &stop, NULL) != 0) {
        fprintf(stderr, "kafka_mock_broker: pthread_sigmask failed\n");
        return 1;
    }

    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The handle only hosts the mock cluster and connects nowhere; log_level 4 hides the
     * "no bootstrap.servers" notice but keeps warnings and errors. */
    if (rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof errstr) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "client.id", "kafka_mock_broker", errstr, sizeof errstr) !=
            RD_KAFKA_CONF_OK) {
        fprintf(stderr, "kafka_mock_broker: conf: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        fprintf(stderr, "kafka_mock_broker: rd_kafka_new: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return 1;
    }

    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        fprintf(stderr, "kafka_mock_broker: rd_kafka_mock_cluster_new failed\n");
        rd_kafka_destroy(rk);
        return 1;
    }

    int rf = brokers < 3 ? brokers : 3;
    for (int i = 0; i < ntopics; i++) {
        rd_kafka_resp_err_t err =
            rd_kafka_mock_topic_create(mc, topics[i].name, topics[i].partitions, rf);
        if (err) {
            fprintf(stderr, "kafka_mock_broker: create topic %s: %s\n", topics[i].name,
                    rd_kafka_err2str(err));
            rd_kafka_mock_cluster_destroy(mc);
            rd_kafka_destroy(rk);
            return 1;
        }
    }

    if (rtt_ms > 0 && rd_kafka_mock_broker_set_rtt(mc, -1, rtt_ms) != 0) {
        fprintf(stderr, "kafka_mock_broker: cannot set the brokers' RTT\n");
        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk);
        return 1;
    }

    mc_live = mc;
    mc_brokers = brokers;
    pthread_t reader;
    if (pthread_create(&reader, NULL, control_reader, NULL) == 0)
        pthread_detach(reader);

    printf("BOOTSTRAP %s\n", rd_kafka_mock_cluster_bootstraps(mc));
    fflush(stdout);
    fprintf(stderr, "kafka_mock_broker: %d broker(s), %d topic(s) pre-created, pid %ld\n", brokers,
            ntopics, (long)getpid());

    int sig = 0;
    for (;;) {
        if (sigwait(&stop, &sig) != 0)
            continue;
        if (sig != SIGUSR1 && sig != SIGUSR2)
            break;
        set_brokers(0, sig == SIGUSR2);
    }
    fprintf(stderr, "kafka_mock_broker: signal %d, shutting down\n", sig);
    pthread_mutex_lock(&mc_lock);
    mc_live = NULL; /* the reader may still be blocked on stdin: it finds nothing to change */
    pthread_mutex_unlock(&mc_lock);

    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
