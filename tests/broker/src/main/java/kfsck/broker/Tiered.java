/*
 * Tiered: the driver's commands for the tiered-storage scenario
 * (tests/broker/scenario_tiered.py), one driver command `tiered op=...`:
 *
 *   op=offsets topic=T [partition=P]
 *       ListOffsets as the admin client asks it: earliest (-2), earliest
 *       local (-4), latest tiered (-5), latest (-1); answers
 *       `earliest=A earliest_local=B latest_tiered=C latest=D`.
 *   op=fetch topic=T [partition=P] offset=O [max=N] [wait=MS]
 *       a consumer (no group, auto.offset.reset=none) assigned the
 *       partition and seeked to O, polling until it has N records (default
 *       1) or MS ms passed (default 15000); answers `records=N first=F
 *       last=L error=E` (E the exception poll threw, else none).
 *   op=update topic=T topic_id=ID [partition=P] segment_id=ID state=S
 *             [broker=B] metadata_partitions=N
 *       writes one RemoteLogSegmentMetadataUpdate (state S: a
 *       RemoteLogSegmentState name) with Kafka's own RemoteLogMetadataSerde
 *       to the __remote_log_metadata partition Kafka's own
 *       RemoteLogMetadataTopicPartitioner maps the user partition to;
 *       answers `partition=M offset=O`.
 *   op=mpart topic=T topic_id=ID [partition=P] metadata_partitions=N
 *       the __remote_log_metadata partition Kafka's own
 *       RemoteLogMetadataTopicPartitioner maps the user partition to.
 *   op=raw topic=T partition=P hex=BYTES
 *       one record of these value bytes (no key); answers its offset.
 */
package kfsck.broker;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

final class Tiered {
    private Tiered() {
    }

    static String run(String servers, Map<String, String> m) throws Exception {
        String op = m.getOrDefault("op", "");
        switch (op) {
            case "offsets": return offsets(servers, m);
            case "fetch": return fetch(servers, m);
            case "update": return update(servers, m);
            case "mpart": return String.valueOf(metadataPartition(m));
            case "raw": return raw(servers, m);
            default: throw new IllegalArgumentException("tiered: unknown op " + op);
        }
    }

    private static String need(Map<String, String> m, String k) {
        String v = m.get(k);
        if (v == null)
            throw new IllegalArgumentException("missing " + k);
        return v;
    }

    private static TopicPartition tp(Map<String, String> m) {
        return new TopicPartition(need(m, "topic"), Integer.parseInt(m.getOrDefault("partition", "0")));
    }

    private static String offsets(String servers, Map<String, String> m) throws Exception {
        TopicPartition tp = tp(m);
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        StringBuilder sb = new StringBuilder();
        try (Admin a = Admin.create(p)) {
            Map<String, OffsetSpec> specs = new java.util.LinkedHashMap<>();
            specs.put("earliest", OffsetSpec.earliest());
            specs.put("earliest_local", OffsetSpec.earliestLocal());
            specs.put("latest_tiered", OffsetSpec.latestTiered());
            specs.put("latest", OffsetSpec.latest());
            for (var e : specs.entrySet()) {
                long o = a.listOffsets(Map.of(tp, e.getValue())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
                sb.append(sb.length() == 0 ? "" : " ").append(e.getKey()).append('=').append(o);
            }
        }
        return sb.toString();
    }

    private static String fetch(String servers, Map<String, String> m) {
        TopicPartition tp = tp(m);
        long offset = Long.parseLong(need(m, "offset"));
        int max = Integer.parseInt(m.getOrDefault("max", "1"));
        long wait = Long.parseLong(m.getOrDefault("wait", "15000"));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, String.valueOf(Math.max(1, Math.min(max, 500))));
        long got = 0, first = -1, last = -1;
        String error = "none";
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seek(tp, offset);
            long deadline = System.currentTimeMillis() + wait;
            while (got < max && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (first < 0)
                        first = r.offset();
                    last = r.offset();
                    got++;
                }
            }
        } catch (Exception e) {
            error = (e.getClass().getSimpleName() + ":" + e.getMessage()).replace(' ', '_').replace('\n', '_');
        }
        return "records=" + got + " first=" + first + " last=" + last + " error=" + error;
    }

    private static KafkaProducer<byte[], byte[]> producer(String servers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p);
    }

    private static long send(String servers, String topic, int partition, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> pr = producer(servers)) {
            return pr.send(new ProducerRecord<>(topic, partition, null, value)).get(30, TimeUnit.SECONDS).offset();
        }
    }

    /** Kafka's storage classes are the broker's runtime dependencies, not
     *  the driver's compile ones: they are called by reflection. */
    private static Class<?> storage(String name) throws ClassNotFoundException {
        return Class.forName("org.apache.kafka.server.log.remote." + name);
    }

    private static int metadataPartition(Map<String, String> m) throws Exception {
        TopicIdPartition tip = new TopicIdPartition(Uuid.fromString(need(m, "topic_id")), tp(m));
        Class<?> partitioner = storage("metadata.storage.RemoteLogMetadataTopicPartitioner");
        return (int) partitioner.getMethod("metadataPartition", TopicIdPartition.class)
            .invoke(partitioner.getConstructor(int.class).newInstance(Integer.parseInt(need(m, "metadata_partitions"))), tip);
    }

    private static String update(String servers, Map<String, String> m) throws Exception {
        TopicIdPartition tip = new TopicIdPartition(Uuid.fromString(need(m, "topic_id")), tp(m));
        Class<?> idClass = storage("storage.RemoteLogSegmentId");
        Class<?> stateClass = storage("storage.RemoteLogSegmentState");
        Class<?> updateClass = storage("storage.RemoteLogSegmentMetadataUpdate");
        Class<?> serdeClass = storage("metadata.storage.serialization.RemoteLogMetadataSerde");
        Object id = idClass.getConstructor(TopicIdPartition.class, Uuid.class)
            .newInstance(tip, Uuid.fromString(need(m, "segment_id")));
        Object state = stateClass.getMethod("valueOf", String.class).invoke(null, need(m, "state"));
        Object u = updateClass.getConstructor(idClass, long.class, Optional.class, stateClass, int.class)
            .newInstance(id, System.currentTimeMillis(), Optional.empty(), state, Integer.parseInt(m.getOrDefault("broker", "1")));
        byte[] value = (byte[]) serdeClass.getMethod("serialize", storage("storage.RemoteLogMetadata"))
            .invoke(serdeClass.getConstructor().newInstance(), u);
        int mp = metadataPartition(m);
        long off = send(servers, "__remote_log_metadata", mp, value);
        return "partition=" + mp + " offset=" + off;
    }

    private static String raw(String servers, Map<String, String> m) throws Exception {
        byte[] v = HexFormat.of().parseHex(need(m, "hex"));
        return String.valueOf(send(servers, need(m, "topic"), Integer.parseInt(need(m, "partition")), v));
    }
}
