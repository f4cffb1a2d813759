/*
 * SlowTransferer: the tiered scenario's way to catch a broker in the middle
 * of an upload. Kafka's LocalTieredStorage copies a segment's files one by
 * one through a Transferer (its `transferer.class` setting, given to the
 * broker as rsm.config.transferer.class): the .log first, then the indexes,
 * the leader-epoch checkpoint and the producer snapshot. This one copies as
 * Kafka's default does (Files.copy; a buffer written whole), but while a
 * file named `slow-copy` sits beside the storage's root directory
 * (rsm.config.dir) it sleeps for a minute after each .log it copied: the
 * segment's metadata then says COPY_SEGMENT_STARTED, its .log object exists
 * and its other objects do not, for long enough to SIGKILL the broker.
 */
package kfsck.broker;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;

import org.apache.kafka.server.log.remote.storage.Transferer;

public final class SlowTransferer implements Transferer {
    private static final String ROOT = "kafka-tiered-storage";

    /** rsm.config.dir: the parent of the storage's root directory that holds `to`. */
    private static File rsmDir(File to) {
        for (File f = to.getParentFile(); f != null; f = f.getParentFile())
            if (f.getName().equals(ROOT))
                return f.getParentFile();
        return null;
    }

    @Override
    public void transfer(File from, File to) throws IOException {
        if (!from.exists())
            return;
        Files.copy(from.toPath(), to.toPath());
        File dir = rsmDir(to);
        if (to.getName().endsWith(".log") && dir != null && new File(dir, "slow-copy").exists()) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while holding an upload", e);
            }
        }
    }

    @Override
    public void transfer(ByteBuffer from, File to) throws IOException {
        if (from == null || !from.hasRemaining())
            return;
        try (FileChannel ch = new FileOutputStream(to, false).getChannel()) {
            while (from.hasRemaining())
                ch.write(from);
        }
    }
}
