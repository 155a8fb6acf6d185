/*
 * kafkad against librdkafka's in-process mock cluster (one broker). The test
 * side may block (consumer reads); kafkad itself only runs on the loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/log.h"
#include "worker/dispatch/kafka.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RESULTS 16

static rd_kafka_t *mock_rk;
static rd_kafka_mock_cluster_t *mock;
static char bootstraps[256];

struct got {
    int n;
    enum kafkad_outcome outcome[MAX_RESULTS];
    int32_t partition[MAX_RESULTS];
    int64_t offset[MAX_RESULTS];
    char message[MAX_RESULTS][128];
    int64_t duration_ms[MAX_RESULTS];
    char json[MAX_RESULTS][256];
    int closed;
};

static void on_result(void *arg, const struct kafkad_result *r)
{
    struct got *g = arg;
    assert_true(g->n < MAX_RESULTS);
    int i = g->n++;
    g->outcome[i] = r->outcome;
    g->partition[i] = r->partition;
    g->offset[i] = r->offset;
    snprintf(g->message[i], sizeof g->message[i], "%s", r->message ? r->message : "");
    g->duration_ms[i] = r->duration_ms;
    struct buf b = BUF_INIT;
    assert_int_equal(kafkad_result_json(r, &b), 0);
    snprintf(g->json[i], sizeof g->json[i], "%s", b.data);
    buf_free(&b);
}

static void on_closed(void *arg)
{
    ((struct got *)arg)->closed = 1;
}

/* Runs the loop until *flag >= want or max_ms passed. */
static void run_until(uv_loop_t *loop, const int *flag, int want, uint64_t max_ms)
{
    uint64_t end = uv_hrtime() + max_ms * 1000000u;
    while (*flag < want && uv_hrtime() < end) {
        uv_update_time(loop);
        uv_run(loop, UV_RUN_NOWAIT);
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void close_and_finish(uv_loop_t *loop, struct kafkad *d, struct got *g, long tmo)
{
    kafkad_close(d, tmo, on_closed, g);
    run_until(loop, &g->closed, 1, (uint64_t)tmo + 10000);
    assert_int_equal(g->closed, 1);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(loop), 0);
}

static int group_setup(void **state)
{
    (void)state;
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof errstr);
    mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!mock_rk)
        return -1;
    mock = rd_kafka_mock_cluster_new(mock_rk, 1);
    if (!mock)
        return -1;
    snprintf(bootstraps, sizeof bootstraps, "%s", rd_kafka_mock_cluster_bootstraps(mock));
    if (rd_kafka_mock_topic_create(mock, "t1", 1, 1) ||
        rd_kafka_mock_topic_create(mock, "t2", 1, 1))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rd_kafka_mock_cluster_destroy(mock);
    rd_kafka_destroy(mock_rk);
    return 0;
}

/* Reads the first record of topic/partition 0 with a blocking consumer. */
static rd_kafka_message_t *read_first(rd_kafka_t **out_rk, const char *topic)
{
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    assert_int_equal(
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, errstr, sizeof errstr),
        RD_KAFKA_CONF_OK);
    assert_int_equal(rd_kafka_conf_set(conf, "group.id", "test", errstr, sizeof errstr),
                     RD_KAFKA_CONF_OK);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
    assert_non_null(rk);
    rd_kafka_topic_partition_list_t *tp = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(tp, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    assert_int_equal(rd_kafka_assign(rk, tp), 0);
    rd_kafka_topic_partition_list_destroy(tp);
    rd_kafka_message_t *m = NULL;
    for (int i = 0; i < 100 && !m; i++) {
        m = rd_kafka_consumer_poll(rk, 100);
        if (m && m->err) {
            rd_kafka_message_destroy(m);
            m = NULL;
        }
    }
    *out_rk = rk;
    return m;
}

static void test_send_ok_and_read_back(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(kafkad_new(&loop, NULL, &d), 0);
    const struct kafkad_header hs[] = {
        {"idempotency-key", "exec-1", 6}, {"attempt", "2", 1}, {"ct", "application/json", 16}};
    const char *val = "{\"a\":1}";
    struct kafkad_request req = {
        .bootstrap_servers = bootstraps,
        .acks = "all",
        .topic = "t1",
        .key = "k1",
        .key_len = 2,
        .value = val,
        .value_len = strlen(val),
        .headers = hs,
        .nheaders = 3,
        .timeout_ms = 10000,
    };
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    assert_int_equal(g.n, 0); /* never inside send */
    assert_int_equal(kafkad_inflight(d), 1);
    run_until(&loop, &g.n, 1, 15000);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.outcome[0], KAFKAD_OK);
    assert_int_equal(g.partition[0], 0);
    assert_int_equal(g.offset[0], 0);
    assert_string_equal(g.json[0], "{\"partition\":0,\"offset\":0}");
    assert_int_equal(kafkad_inflight(d), 0);

    /* same (bootstrap, acks, timeout) reuses the producer; offsets go on */
    req.acks = "-1";
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 2, 15000);
    assert_int_equal(g.outcome[1], KAFKAD_OK);
    assert_int_equal(g.offset[1], 1);
    close_and_finish(&loop, d, &g, 1000);

    rd_kafka_t *c;
    rd_kafka_message_t *m = read_first(&c, "t1");
    assert_non_null(m);
    assert_int_equal(m->key_len, 2);
    assert_memory_equal(m->key, "k1", 2);
    assert_int_equal(m->len, strlen(val));
    assert_memory_equal(m->payload, val, strlen(val));
    rd_kafka_headers_t *h;
    assert_int_equal(rd_kafka_message_headers(m, &h), 0);
    assert_int_equal(rd_kafka_header_cnt(h), 3);
    for (size_t i = 0; i < TE_ARRAY_LEN(hs); i++) {
        const void *v;
        size_t vl;
        assert_int_equal(rd_kafka_header_get_last(h, hs[i].name, &v, &vl), 0);
        assert_int_equal(vl, hs[i].value_len);
        assert_memory_equal(v, hs[i].value, vl);
    }
    rd_kafka_message_destroy(m);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
}

static void test_invalid_requests(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    struct kafkad_config bad = {.idle_ms = -1};
    assert_int_equal(kafkad_new(&loop, &bad, &d), -EINVAL);
    assert_int_equal(kafkad_new(&loop, NULL, &d), 0);
    struct kafkad_request req = {.bootstrap_servers = bootstraps, .topic = "t1"};
    assert_int_equal(kafkad_send(d, &req, NULL, &g), -EINVAL);
    assert_string_equal(kafkad_error(d), "invalid request");
    req.acks = "2";
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EINVAL);
    req.acks = "1";
    req.topic = NULL;
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EINVAL);
    req.topic = "t1";
    const struct kafkad_header hs[] = {{NULL, "x", 1}};
    req.headers = hs;
    req.nheaders = 1;
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EINVAL);
    req.nheaders = 0;
    /* librdkafka refuses a setting: its reason, never the value of a password */
    req.security = (struct kafkad_security){.protocol = "TLS", .sasl_password = "pw-123"};
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EINVAL);
    assert_non_null(strstr(kafkad_error(d), "security.protocol"));
    assert_null(strstr(kafkad_error(d), "pw-123"));
    req.security = (struct kafkad_security){.protocol = "SASL_SSL",
                                            .sasl_mechanism = "NOPE",
                                            .sasl_username = "u",
                                            .sasl_password = "pw-123"};
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EIO);
    assert_non_null(strstr(kafkad_error(d), "Unsupported SASL mechanism"));
    assert_null(strstr(kafkad_error(d), "pw-123"));
    /* the producer cannot be created: librdkafka's reason */
    req.security =
        (struct kafkad_security){.protocol = "SSL", .ssl_ca_location = "/nonexistent/ca.pem"};
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -EIO);
    assert_non_null(strstr(kafkad_error(d), "ssl.ca.location"));
    assert_int_equal(kafkad_inflight(d), 0);
    close_and_finish(&loop, d, &g, 0);
    assert_int_equal(g.n, 0);
}

static void test_unreachable_broker(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(kafkad_new(&loop, NULL, &d), 0);
    struct kafkad_request req = {
        .bootstrap_servers = "127.0.0.1:1",
        .acks = "1",
        .topic = "t1",
        .value = "{}",
        .value_len = 2,
        .timeout_ms = 500,
    };
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 1, 10000);
    assert_int_equal(g.n, 1);
    assert_true(g.outcome[0] == KAFKAD_TIMEOUT || g.outcome[0] == KAFKAD_BROKER_ERROR);
    assert_true(g.duration_ms[0] < 5000); /* about timeout_ms + librdkafka's 1 s scan */
    assert_true(strncmp(g.json[0], "{\"type\":\"", 9) == 0);
    assert_non_null(strstr(g.json[0], "\"message\":\""));
    /* a timeout says why: the last connection error */
    if (g.outcome[0] == KAFKAD_TIMEOUT)
        assert_non_null(strstr(g.message[0], "(last broker error: "));
    close_and_finish(&loop, d, &g, 1000);
}

static void test_broker_down_then_up(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(kafkad_new(&loop, NULL, &d), 0);
    struct kafkad_request req = {
        .bootstrap_servers = bootstraps,
        .acks = "1",
        .topic = "t2",
        .value = "{\"n\":1}",
        .value_len = 7,
        .timeout_ms = 1000,
    };
    assert_int_equal(rd_kafka_mock_broker_set_down(mock, 1), 0);
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 1, 10000);
    assert_int_equal(g.n, 1);
    assert_true(g.outcome[0] == KAFKAD_TIMEOUT || g.outcome[0] == KAFKAD_BROKER_ERROR);

    assert_int_equal(rd_kafka_mock_broker_set_up(mock, 1), 0);
    req.timeout_ms = 10000;
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 2, 15000);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.outcome[1], KAFKAD_OK);
    assert_int_equal(g.partition[1], 0);
    assert_true(g.offset[1] >= 0);
    close_and_finish(&loop, d, &g, 1000);
}

static void test_close_with_inflight(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(kafkad_new(&loop, NULL, &d), 0);
    struct kafkad_request req = {
        .bootstrap_servers = "127.0.0.1:1",
        .topic = "t1",
        .value = "{}",
        .value_len = 2,
        .timeout_ms = 60000,
    };
    for (int i = 0; i < 4; i++)
        assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    /* one that can complete during the drain */
    req.bootstrap_servers = bootstraps;
    req.timeout_ms = 10000;
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    assert_int_equal(kafkad_inflight(d), 5);
    uint64_t t0 = uv_hrtime();
    kafkad_close(d, 2000, on_closed, &g);
    assert_int_equal(kafkad_send(d, &req, on_result, &g), -ESHUTDOWN);
    run_until(&loop, &g.closed, 1, 15000);
    assert_int_equal(g.closed, 1);
    assert_true((uv_hrtime() - t0) / 1000000u < 8000);
    assert_int_equal(g.n, 5);
    int ok = 0, down = 0;
    for (int i = 0; i < g.n; i++) {
        if (g.outcome[i] == KAFKAD_OK)
            ok++;
        else if (g.outcome[i] == KAFKAD_BROKER_ERROR && strcmp(g.message[i], "shutting down") == 0)
            down++;
    }
    assert_int_equal(ok, 1);
    assert_int_equal(down, 4);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

struct reenter {
    struct kafkad *d;
    struct got g;
    int send_rc;
};

/* A callback that sends again and then closes kafkad, as the header allows. */
static void on_result_reenter(void *arg, const struct kafkad_result *r)
{
    struct reenter *re = arg;
    on_result(&re->g, r);
    if (re->g.n == 1) {
        struct kafkad_request req = {
            .bootstrap_servers = bootstraps, .acks = "1", .topic = "t2", .timeout_ms = 5000};
        re->send_rc = kafkad_send(re->d, &req, on_result, &re->g);
        kafkad_close(re->d, 3000, on_closed, &re->g);
    }
}

static void test_close_from_callback(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct reenter re = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(kafkad_new(&loop, NULL, &re.d), 0);
    struct kafkad_request req = {
        .bootstrap_servers = bootstraps, .acks = "1", .topic = "t2", .timeout_ms = 5000};
    assert_int_equal(kafkad_send(re.d, &req, on_result_reenter, &re), 0);
    run_until(&loop, &re.g.closed, 1, 15000);
    assert_int_equal(re.send_rc, 0);
    assert_int_equal(re.g.closed, 1);
    assert_int_equal(re.g.n, 2);
    assert_int_equal(re.g.outcome[0], KAFKAD_OK);
    assert_int_equal(re.g.outcome[1], KAFKAD_OK); /* the drain let it finish */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_idle_producer_closed(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct kafkad *d;
    struct got g = {0};
    assert_int_equal(uv_loop_init(&loop), 0);
    struct kafkad_config cfg = {.idle_ms = 200};
    assert_int_equal(kafkad_new(&loop, &cfg, &d), 0);
    struct kafkad_request req = {
        .bootstrap_servers = bootstraps, .acks = "0", .topic = "t2", .timeout_ms = 5000};
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 1, 10000);
    assert_int_equal(g.outcome[0], KAFKAD_OK);
    /* the producer's uv_poll is the only referenced handle: the loop ends once it is reaped */
    uint64_t t0 = uv_hrtime();
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true((uv_hrtime() - t0) / 1000000u < 5000);
    /* a later send makes a new producer */
    assert_int_equal(kafkad_send(d, &req, on_result, &g), 0);
    run_until(&loop, &g.n, 2, 10000);
    assert_int_equal(g.outcome[1], KAFKAD_OK);
    close_and_finish(&loop, d, &g, 1000);
}

static void test_result_json(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    struct kafkad_result r = {.outcome = KAFKAD_TIMEOUT, .message = "Local: \"timed\" out"};
    assert_int_equal(kafkad_result_json(&r, &b), 0);
    assert_string_equal(b.data, "{\"type\":\"TIMEOUT\",\"message\":\"Local: \\\"timed\\\" out\"}");
    buf_reset(&b);
    r = (struct kafkad_result){.outcome = KAFKAD_OK, .partition = 3, .offset = 1234567890123};
    assert_int_equal(kafkad_result_json(&r, &b), 0);
    assert_string_equal(b.data, "{\"partition\":3,\"offset\":1234567890123}");
    buf_free(&b);
    assert_string_equal(kafkad_outcome_name(KAFKAD_BROKER_ERROR), "BROKER_ERROR");
}

int main(void)
{
    log_setup(LOG_ERROR, false); /* outages in these tests are expected: no warnings */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_json),           cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_send_ok_and_read_back), cmocka_unit_test(test_unreachable_broker),
        cmocka_unit_test(test_broker_down_then_up),   cmocka_unit_test(test_close_with_inflight),
        cmocka_unit_test(test_close_from_callback),   cmocka_unit_test(test_idle_producer_closed),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
