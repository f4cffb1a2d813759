/*
 * Driver: the broker suite's workload and tool runner, one JVM per scenario.
 *
 * It reads commands from standard input, one a line, tab-separated words
 * (`name` then `key=value` words, or a tool's arguments), does each with the
 * real Kafka client (or runs a Kafka tool's main in this JVM), and answers
 * every line with one line on standard output: `ok <what>` or
 * `err <message>`. tests/broker/harness.py writes the commands and waits for
 * each answer, so it can stop or kill a broker between two of them. Nothing
 * else is printed on standard output (the client logs through slf4j-simple
 * to the file the harness names).
 *
 * Commands (keys in brackets are optional):
 *   bootstrap  servers=H:P
 *   topic      name=T [partitions=N] [rf=N] [config=k:v,k:v]
 *              [assign=B:B:B,B:B:B] (each partition's replicas, the first
 *              its preferred leader; instead of partitions and rf)
 *   produce    topic=T n=N [per=N] [codec=none|gzip|snappy|lz4|zstd]
 *              [idempotent=true|false] [partition=P] [keys=N] [headers=N]
 *              [size=N] [binary=true] [sr=ID] [nullkey=true] [tombstones=N]
 *              [prefix=S] [ts=MS] [skew=I:MS] (every record's create
 *              timestamp now+MS, and record I's now+MS of its own: a
 *              producer whose clock is off)
 *   txn        id=X topic=T n=N end=commit|abort|open [per=N] [codec=C]
 *              [partitions=P,Q] [group=G] (offsets committed in the txn)
 *   txnend     id=X end=commit|abort (ends a transaction `txn` left open)
 *   consume    group=G topic=T [protocol=classic|consumer] [max=N] [client=ID]
 *              (reads up to N records from the group's position, commits
 *              after each poll, and leaves the group)
 *   share      group=G topic=T [max=N] (a share-group consumer, KIP-932:
 *              reads up to N records, acknowledges them, closes)
 *   members    name=M group=G topic=T [protocol=classic|consumer] [count=N]
 *              (N consumers stay in the group, polling, until `leave`)
 *   leave      name=M
 *   commit     group=G topic=T partition=P offset=O [metadata=S]
 *              (a standalone commit through Admin.alterConsumerGroupOffsets)
 *   offsetdel  group=G topic=T partition=P
 *   groupdel   group=G
 *   readback   topic=T out=FILE [isolation=read_committed|read_uncommitted]
 *              (every record from the start of each partition to its end, as
 *              JSON lines: partition, offset, timestamp, timestamp_type,
 *              key_b64, value_b64, headers [[key, value_b64]], leader_epoch)
 *   ends       topic=T out=FILE (start, end, last stable offsets per partition)
 *   partinfo   topic=T out=FILE (per partition, as the cluster describes it:
 *              leader (-1 none), replicas, isr, elr, last_known_elr)
 *   mvlevel    name=V (the feature level of metadata.version V, e.g. 4.4-IV0,
 *              by Kafka's own MetadataVersion)
 *   pump       topic=T [rate=N] (a background producer, acks=1, until `stop`
 *              or the broker goes away; answers at once)
 *   stop       (ends the pump; answers with the count it had acknowledged)
 *   tool       OUT CLASS ARG... (runs CLASS.main(ARG...) here with standard
 *              output into the file OUT and System.exit turned into a return;
 *              answers with the exit code)
 *   tiered     op=... (tiered storage: ListOffsets, fetches, metadata; Tiered.java)
 *   quit
 */
package kfsck.broker;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.Exit;

public final class Driver {
    private String servers;
    private Admin admin;
    private final Map<String, List<Member>> members = new HashMap<>();
    private final Map<String, KafkaProducer<byte[], byte[]>> openTxns = new HashMap<>();
    private Thread pump;
    private final AtomicBoolean pumpStop = new AtomicBoolean();
    private final AtomicLong pumpAcked = new AtomicLong();

    /** The code of a tool's first Exit.exit: a tool may catch the ToolExit its
     *  own exit threw (TopicCommand exits 0 inside a catch-all that then
     *  exits 1), and the first exit is what the shell would have seen. */
    private static volatile Integer firstExit;

    /** Thrown instead of exiting the JVM when a tool calls Exit.exit. */
    private static final class ToolExit extends RuntimeException {
        final int code;
        ToolExit(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    public static void main(String[] args) throws Exception {
        Exit.setExitProcedure((code, msg) -> { exiting(code); });
        Exit.setHaltProcedure((code, msg) -> { exiting(code); });
        PrintStream out = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Driver d = new Driver();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank())
                continue;
            String[] w = line.split("\t");
            if (w[0].equals("quit"))
                break;
            String answer;
            try {
                answer = "ok " + d.run(w);
            } catch (Throwable t) {
                Throwable c = t;
                while (c.getCause() != null)
                    c = c.getCause();
                answer = "err " + (t.getClass().getSimpleName() + ": " + t.getMessage() + " / " + c).replace('\n', ' ');
            }
            out.println(answer);
            out.flush();
        }
        d.close();
        out.println("bye");
        out.flush();
        // Client threads (an open transaction's producer) must not hold the JVM.
        Runtime.getRuntime().halt(0);
    }

    private static void exiting(int code) {
        if (firstExit == null)
            firstExit = code;
        throw new ToolExit(code);
    }

    private static Map<String, String> kv(String[] w) {
        Map<String, String> m = new HashMap<>();
        for (int i = 1; i < w.length; i++) {
            int eq = w[i].indexOf('=');
            if (eq < 0)
                throw new IllegalArgumentException("not key=value: " + w[i]);
            m.put(w[i].substring(0, eq), w[i].substring(eq + 1));
        }
        return m;
    }

    private static String need(Map<String, String> m, String k) {
        String v = m.get(k);
        if (v == null)
            throw new IllegalArgumentException("missing " + k);
        return v;
    }

    private static int num(Map<String, String> m, String k, int dflt) {
        String v = m.get(k);
        return v == null ? dflt : Integer.parseInt(v);
    }

    private String run(String[] w) throws Exception {
        if (w[0].equals("tool"))
            return tool(w);
        Map<String, String> m = kv(w);
        switch (w[0]) {
            case "bootstrap":
                servers = need(m, "servers");
                if (admin != null)
                    admin.close(Duration.ofSeconds(5));
                admin = null;
                return servers;
            case "topic": return topic(m);
            case "produce": return produce(m);
            case "txn": return txn(m);
            case "txnend": return txnEnd(m);
            case "consume": return consume(m);
            case "share": return share(m);
            case "members": return members(m);
            case "leave": return leave(m);
            case "commit": return commit(m);
            case "offsetdel": return offsetdel(m);
            case "groupdel": return groupdel(m);
            case "readback": return readback(m);
            case "ends": return ends(m);
            case "partinfo": return partinfo(m);
            case "mvlevel": {
                // server-common is the broker's (runtime) dependency: by reflection
                Class<?> mv = Class.forName("org.apache.kafka.server.common.MetadataVersion");
                Object v = mv.getMethod("fromVersionString", String.class, boolean.class).invoke(null, need(m, "name"), true);
                return String.valueOf(mv.getMethod("featureLevel").invoke(v));
            }
            case "pump": return pump(m);
            case "stop": return stopPump();
            case "tiered": return Tiered.run(servers, m);  // tiered storage (Tiered.java)
            default: throw new IllegalArgumentException("unknown command " + w[0]);
        }
    }

    private Admin admin() {
        if (admin == null) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
            admin = Admin.create(p);
        }
        return admin;
    }

    private String topic(Map<String, String> m) throws Exception {
        NewTopic t;
        if (m.containsKey("assign")) {
            Map<Integer, List<Integer>> a = new HashMap<>();
            String[] parts = m.get("assign").split(",");
            for (int i = 0; i < parts.length; i++) {
                List<Integer> rs = new ArrayList<>();
                for (String b : parts[i].split(":"))
                    rs.add(Integer.valueOf(b));
                a.put(i, rs);
            }
            t = new NewTopic(need(m, "name"), a);
        } else
            t = new NewTopic(need(m, "name"), num(m, "partitions", 1), (short) num(m, "rf", 1));
        String cfg = m.get("config");
        if (cfg != null && !cfg.isEmpty()) {
            Map<String, String> c = new HashMap<>();
            for (String kv : cfg.split(",")) {
                int i = kv.indexOf(':');
                c.put(kv.substring(0, i), kv.substring(i + 1));
            }
            t.configs(c);
        }
        admin().createTopics(List.of(t)).all().get(60, TimeUnit.SECONDS);
        // Wait until every partition has a leader this client can see.
        long deadline = System.currentTimeMillis() + 30000;
        while (true) {
            try {
                var d = admin().describeTopics(List.of(t.name())).allTopicNames().get(10, TimeUnit.SECONDS).get(t.name());
                if (d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()))
                    break;
            } catch (Exception e) {
                if (System.currentTimeMillis() > deadline)
                    throw e;
            }
            if (System.currentTimeMillis() > deadline)
                throw new IllegalStateException("no leader for " + t.name());
            Thread.sleep(100);
        }
        return t.name();
    }

    private Properties producerProps(Map<String, String> m) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, m.getOrDefault("codec", "none"));
        // Batches end where the driver flushes (every `per` records), not by time or size.
        p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(1 << 20));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        boolean idem = Boolean.parseBoolean(m.getOrDefault("idempotent", "true"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(idem));
        p.put(ProducerConfig.ACKS_CONFIG, idem ? "all" : m.getOrDefault("acks", "1"));
        if (!idem)
            p.put(ProducerConfig.RETRIES_CONFIG, "0");
        return p;
    }

    /** The i-th record of a workload, as `produce` and `txn` write it. */
    private static ProducerRecord<byte[], byte[]> record(String topic, Integer partition, String prefix, int i,
                                                         Map<String, String> m) {
        int keys = num(m, "keys", 0);
        int headers = num(m, "headers", 0);
        int size = num(m, "size", 0);
        byte[] key = null;
        if (!(Boolean.parseBoolean(m.getOrDefault("nullkey", "false")) && i % 3 == 0))
            key = (prefix + "k-" + (keys > 0 ? i % keys : i)).getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(prefix).append("value-").append(i);
        while (sb.length() < size)
            sb.append(" lorem-").append(i * 7919 % 1000);
        byte[] value = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (Boolean.parseBoolean(m.getOrDefault("binary", "false")) && i % 2 == 1) {
            value = new byte[16 + i % 17];
            for (int j = 0; j < value.length; j++)
                value[j] = (byte) (0x80 + (i * 31 + j * 17) % 128);  // never UTF-8
        }
        String sr = m.get("sr");
        if (sr != null) {
            byte[] framed = new byte[5 + value.length];
            int id = Integer.parseInt(sr);
            framed[1] = (byte) (id >>> 24);
            framed[2] = (byte) (id >>> 16);
            framed[3] = (byte) (id >>> 8);
            framed[4] = (byte) id;
            System.arraycopy(value, 0, framed, 5, value.length);
            value = framed;
        }
        int tomb = num(m, "tombstones", 0);
        if (tomb > 0 && i % tomb == tomb - 1)
            value = null;
        RecordHeaders h = new RecordHeaders();
        for (int j = 0; j < headers; j++)
            h.add("h" + j, (j == 1 ? null : ("hv-" + i + "-" + j).getBytes(StandardCharsets.UTF_8)));
        Long ts = null;
        if (m.containsKey("ts"))
            ts = System.currentTimeMillis() + Long.parseLong(m.get("ts"));
        String skew = m.get("skew");
        if (skew != null && Integer.parseInt(skew.split(":")[0]) == i)
            ts = System.currentTimeMillis() + Long.parseLong(skew.split(":")[1]);
        return new ProducerRecord<>(topic, partition, ts, key, value, h);
    }

    private String produce(Map<String, String> m) throws Exception {
        String topic = need(m, "topic");
        int n = num(m, "n", 10), per = num(m, "per", 10);
        Integer part = m.containsKey("partition") ? Integer.valueOf(m.get("partition")) : null;
        String prefix = m.getOrDefault("prefix", "");
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerProps(m))) {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(p.send(record(topic, part == null ? Integer.valueOf(i % partitions(topic)) : part, prefix, i, m)));
                if ((i + 1) % per == 0)
                    p.flush();
            }
            p.flush();
            for (var f : fs)
                f.get(60, TimeUnit.SECONDS);
        }
        return topic + " " + n;
    }

    private final Map<String, Integer> partitionCounts = new HashMap<>();

    private int partitions(String topic) throws Exception {
        Integer n = partitionCounts.get(topic);
        if (n == null) {
            n = admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
            partitionCounts.put(topic, n);
        }
        return n;
    }

    private String txn(Map<String, String> m) throws Exception {
        String topic = need(m, "topic"), id = need(m, "id"), end = need(m, "end");
        int n = num(m, "n", 10), per = num(m, "per", 5);
        List<Integer> parts = new ArrayList<>();
        for (String s : m.getOrDefault("partitions", "0").split(","))
            parts.add(Integer.valueOf(s));
        Properties p = producerProps(m);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, m.getOrDefault("timeout", "600000"));
        KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p);
        pr.initTransactions();
        pr.beginTransaction();
        for (int i = 0; i < n; i++) {
            pr.send(record(topic, parts.get(i % parts.size()), id + "-", i, m));
            if ((i + 1) % per == 0)
                pr.flush();
        }
        pr.flush();
        String group = m.get("group");
        if (group != null) {
            Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
            for (int q : parts)
                offs.put(new TopicPartition(topic, q), new OffsetAndMetadata(n + q, "txn-" + id));
            pr.sendOffsetsToTransaction(offs, new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
        }
        switch (end) {
            case "commit": pr.commitTransaction(); pr.close(Duration.ofSeconds(30)); break;
            case "abort": pr.abortTransaction(); pr.close(Duration.ofSeconds(30)); break;
            case "open": openTxns.put(id, pr); break;  // left open: never closed
            default: throw new IllegalArgumentException("end=" + end);
        }
        return id + " " + end;
    }

    private String txnEnd(Map<String, String> m) {
        String id = need(m, "id"), end = need(m, "end");
        KafkaProducer<byte[], byte[]> pr = openTxns.remove(id);
        if (pr == null)
            throw new IllegalArgumentException("no open transaction " + id);
        if (end.equals("commit"))
            pr.commitTransaction();
        else if (end.equals("abort"))
            pr.abortTransaction();
        else
            throw new IllegalArgumentException("end=" + end);
        pr.close(Duration.ofSeconds(30));
        return id + " " + end;
    }

    private Properties consumerProps(String group, String protocol) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-client");
        return p;
    }

    private String share(Map<String, String> m) throws Exception {
        String group = need(m, "group"), topic = need(m, "topic");
        int max = num(m, "max", Integer.MAX_VALUE);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-client");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        int got = 0;
        try (org.apache.kafka.clients.consumer.KafkaShareConsumer<byte[], byte[]> c =
                 new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60000;
            while (got < max && System.currentTimeMillis() < deadline) {
                ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(500));
                got += rs.count();
                if (!rs.isEmpty())
                    c.commitSync();  // acknowledges what this poll delivered
            }
        }
        return group + " " + got;
    }

    private String consume(Map<String, String> m) throws Exception {
        String group = need(m, "group"), topic = need(m, "topic");
        int max = num(m, "max", Integer.MAX_VALUE);
        int got = 0;
        Properties cp = consumerProps(group, m.getOrDefault("protocol", "classic"));
        if (m.containsKey("client"))
            cp.put(ConsumerConfig.CLIENT_ID_CONFIG, m.get("client"));
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60000;
            int idle = 0;
            while (got < max && System.currentTimeMillis() < deadline) {
                ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(500));
                if (rs.isEmpty()) {
                    if (!c.assignment().isEmpty() && ++idle >= 4)
                        break;
                    continue;
                }
                idle = 0;
                Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : rs) {
                    if (got >= max)
                        break;
                    offs.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1, "meta-" + got));
                    got++;
                }
                c.commitSync(offs);
            }
        }
        return group + " " + got;
    }

    /** A consumer that stays in its group, polling, until `leave`. */
    private final class Member implements Runnable {
        final KafkaConsumer<byte[], byte[]> c;
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread t;
        volatile boolean assigned;

        Member(String group, String topic, String protocol, String instance) {
            Properties p = consumerProps(group, protocol);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, instance);
            c = new KafkaConsumer<>(p);
            c.subscribe(List.of(topic));
            t = new Thread(this, "member-" + instance);
            t.setDaemon(true);
            t.start();
        }

        public void run() {
            try {
                while (!stop.get()) {
                    ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(200));
                    if (!c.assignment().isEmpty())
                        assigned = true;
                    if (!rs.isEmpty())
                        c.commitSync();
                }
            } catch (Exception e) {
                // the broker went away: the harness killed it
            } finally {
                if (stop.get())
                    c.close(Duration.ofSeconds(10));
            }
        }
    }

    private String members(Map<String, String> m) throws Exception {
        String name = need(m, "name");
        int count = num(m, "count", 1);
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < count; i++)
            ms.add(new Member(need(m, "group"), need(m, "topic"), m.getOrDefault("protocol", "classic"), name + "-" + i));
        members.put(name, ms);
        // Until every member has its partitions and the group is stable.
        long deadline = System.currentTimeMillis() + 60000;
        while (System.currentTimeMillis() < deadline) {
            boolean all = true;
            for (Member x : ms)
                all &= x.assigned;
            if (all) {
                var d = admin().describeConsumerGroups(List.of(need(m, "group"))).all().get(10, TimeUnit.SECONDS)
                    .get(need(m, "group"));
                if (d.groupState().toString().equalsIgnoreCase("stable") && d.members().size() == count
                        && d.members().stream().allMatch(x -> !x.assignment().topicPartitions().isEmpty() || count > 1))
                    return name + " " + count;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("group " + need(m, "group") + " did not become stable");
    }

    private String leave(Map<String, String> m) throws Exception {
        List<Member> ms = members.remove(need(m, "name"));
        for (Member x : ms)
            x.stop.set(true);
        for (Member x : ms)
            x.t.join(20000);
        return need(m, "name");
    }

    private String commit(Map<String, String> m) throws Exception {
        TopicPartition tp = new TopicPartition(need(m, "topic"), Integer.parseInt(need(m, "partition")));
        admin().alterConsumerGroupOffsets(need(m, "group"),
            Map.of(tp, new OffsetAndMetadata(Long.parseLong(need(m, "offset")), m.getOrDefault("metadata", ""))))
            .all().get(30, TimeUnit.SECONDS);
        return need(m, "group");
    }

    private String offsetdel(Map<String, String> m) throws Exception {
        TopicPartition tp = new TopicPartition(need(m, "topic"), Integer.parseInt(need(m, "partition")));
        admin().deleteConsumerGroupOffsets(need(m, "group"), Set.of(tp)).all().get(30, TimeUnit.SECONDS);
        return need(m, "group");
    }

    private String groupdel(Map<String, String> m) throws Exception {
        admin().deleteConsumerGroups(List.of(need(m, "group"))).all().get(30, TimeUnit.SECONDS);
        return need(m, "group");
    }

    private static String b64(byte[] b) {
        return b == null ? "null" : "\"" + Base64.getEncoder().encodeToString(b) + "\"";
    }

    private static String jstr(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\')
                sb.append('\\').append(ch);
            else if (ch < 0x20)
                sb.append(String.format("\\u%04x", (int) ch));
            else
                sb.append(ch);
        }
        return sb.append('"').toString();
    }

    private String readback(Map<String, String> m) throws Exception {
        String topic = need(m, "topic");
        int n = partitions(topic);
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < n; i++)
            tps.add(new TopicPartition(topic, i));
        Properties p = consumerProps("unused", "classic");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, m.getOrDefault("isolation", "read_uncommitted"));
        int count = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
             PrintWriter w = new PrintWriter(new FileOutputStream(need(m, "out")), false, StandardCharsets.UTF_8)) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long deadline = System.currentTimeMillis() + 60000;
            while (System.currentTimeMillis() < deadline) {
                boolean done = true;
                for (TopicPartition tp : tps)
                    done &= c.position(tp) >= end.get(tp);
                if (done)
                    break;
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    StringBuilder sb = new StringBuilder("{\"partition\":").append(r.partition())
                        .append(",\"offset\":").append(r.offset())
                        .append(",\"timestamp\":").append(r.timestamp())
                        .append(",\"timestamp_type\":").append(jstr(r.timestampType().toString()))
                        .append(",\"key_b64\":").append(b64(r.key()))
                        .append(",\"value_b64\":").append(b64(r.value()))
                        .append(",\"leader_epoch\":").append(r.leaderEpoch().orElse(-1))
                        .append(",\"headers\":[");
                    boolean first = true;
                    for (Header h : r.headers()) {
                        sb.append(first ? "" : ",").append("[").append(jstr(h.key())).append(",").append(b64(h.value())).append("]");
                        first = false;
                    }
                    w.println(sb.append("]}"));
                    count++;
                }
            }
        }
        return topic + " " + count;
    }

    private String ends(Map<String, String> m) throws Exception {
        String topic = need(m, "topic");
        int n = partitions(topic);
        Map<TopicPartition, OffsetSpec> q = new HashMap<>();
        for (int i = 0; i < n; i++)
            q.put(new TopicPartition(topic, i), OffsetSpec.latest());
        var latest = admin().listOffsets(q).all().get(30, TimeUnit.SECONDS);
        for (var e : q.entrySet())
            e.setValue(OffsetSpec.earliest());
        var earliest = admin().listOffsets(q).all().get(30, TimeUnit.SECONDS);
        var lso = admin().listOffsets(q.keySet().stream().collect(java.util.stream.Collectors.toMap(t -> t, t -> OffsetSpec.latest())),
            new org.apache.kafka.clients.admin.ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
        try (PrintWriter w = new PrintWriter(new FileOutputStream(need(m, "out")), false, StandardCharsets.UTF_8)) {
            for (int i = 0; i < n; i++) {
                TopicPartition tp = new TopicPartition(topic, i);
                w.println("{\"partition\":" + i + ",\"log_start_offset\":" + earliest.get(tp).offset()
                    + ",\"log_end_offset\":" + latest.get(tp).offset() + ",\"last_stable_offset\":" + lso.get(tp).offset() + "}");
            }
        }
        return topic;
    }

    private static String ids(List<org.apache.kafka.common.Node> ns) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; ns != null && i < ns.size(); i++)
            sb.append(i > 0 ? "," : "").append(ns.get(i).id());
        return sb.append("]").toString();
    }

    private String partinfo(Map<String, String> m) throws Exception {
        String topic = need(m, "topic");
        var d = admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        try (PrintWriter w = new PrintWriter(new FileOutputStream(need(m, "out")), false, StandardCharsets.UTF_8)) {
            for (var p : d.partitions()) {
                int leader = p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
                w.println("{\"partition\":" + p.partition() + ",\"leader\":" + leader + ",\"replicas\":" + ids(p.replicas())
                    + ",\"isr\":" + ids(p.isr()) + ",\"elr\":" + ids(p.elr()) + ",\"last_known_elr\":" + ids(p.lastKnownElr()) + "}");
            }
        }
        return topic;
    }

    private String pump(Map<String, String> m) {
        String topic = need(m, "topic");
        Map<String, String> pm = new HashMap<>(m);
        pm.put("idempotent", "false");
        pm.put("acks", "1");
        Properties p = producerProps(pm);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "3000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
        pumpStop.set(false);
        pumpAcked.set(0);
        pump = new Thread(() -> {
            try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p)) {
                int i = 0;
                while (!pumpStop.get()) {
                    pr.send(record(topic, 0, "pump-", i++, pm), (md, e) -> { if (e == null) pumpAcked.incrementAndGet(); });
                    if (i % 50 == 0)
                        Thread.sleep(1);
                }
            } catch (Exception e) {
                // the broker went away
            }
        }, "pump");
        pump.setDaemon(true);
        pump.start();
        return topic;
    }

    private String stopPump() throws InterruptedException {
        pumpStop.set(true);
        if (pump != null)
            pump.join(10000);
        return String.valueOf(pumpAcked.get());
    }

    private static final Object TOOL_LOCK = new Object();

    private String tool(String[] w) throws Exception {
        if (w.length < 3)
            throw new IllegalArgumentException("tool OUT CLASS ARG...");
        String[] args = new String[w.length - 3];
        System.arraycopy(w, 3, args, 0, args.length);
        Method main = Class.forName(w[2]).getMethod("main", String[].class);
        synchronized (TOOL_LOCK) {
            PrintStream saved = System.out, savedErr = System.err;
            int code = 0;
            try (PrintStream ps = new PrintStream(new FileOutputStream(w[1]), true, StandardCharsets.UTF_8);
                 PrintStream es = new PrintStream(new FileOutputStream(w[1] + ".err"), true, StandardCharsets.UTF_8)) {
                System.setOut(ps);
                System.setErr(es);
                firstExit = null;
                try {
                    main.invoke(null, (Object) args);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    if (!(e.getCause() instanceof ToolExit)) {
                        e.getCause().printStackTrace(es);
                        code = 99;
                    }
                }
                if (firstExit != null)
                    code = firstExit;
            } finally {
                System.setOut(saved);
                System.setErr(savedErr);
            }
            return String.valueOf(code);
        }
    }

    private void close() {
        for (Collection<Member> ms : members.values())
            for (Member x : ms)
                x.stop.set(true);
        if (admin != null)
            admin.close(Duration.ofSeconds(5));
    }
}
