package harness;

import com.yahoo.application.Application;
import com.yahoo.application.Networking;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.schema.ApplicationBuilder;
import com.yahoo.schema.Schema;
import com.yahoo.schema.derived.Deriver;
import com.yahoo.schema.document.Attribute;
import com.yahoo.vespa.documentmodel.SummaryTransform;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Starts the harness: Vespa's container (com.yahoo.application.Application, with real Jetty) with
 * DocumentV1ApiHandler over the harness store, the search chain with the store's searcher, and
 * the control endpoint. It writes the application package (services.xml with the port, and the
 * schemas) to --package, prints {@code READY <port> <millis>} on stdout once /harness/v1/ready
 * answers, and exits when stdin closes.
 * <p>
 * Arguments: {@code --schemas DIR} (the .sd files; required), {@code --package DIR} (where to write the
 * application package; a temporary directory by default), {@code --port N} (0 or absent: a free port),
 * {@code --cluster NAME} (the content cluster, "music" by default), {@code --global A,B} (the globally
 * distributed document types).
 */
public final class Main {

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        Map<String, String> opts = parse(args);
        Path schemas = Path.of(require(opts, "schemas"));
        Path app = opts.containsKey("package") ? Path.of(opts.get("package")) : Files.createTempDirectory("jdisc-harness");
        int port = Integer.parseInt(opts.getOrDefault("port", "0"));
        if (port == 0) port = freePort();
        String cluster = opts.getOrDefault("cluster", "music");
        Set<String> global = new HashSet<>();
        for (String g : opts.getOrDefault("global", "").split(",")) if (!g.isBlank()) global.add(g.trim());

        List<String> sdFiles = new ArrayList<>();
        try (Stream<Path> s = Files.list(schemas)) {
            s.filter(p -> p.toString().endsWith(".sd")).sorted().forEach(p -> sdFiles.add(p.toString()));
        }
        if (sdFiles.isEmpty()) throw new IllegalArgumentException("no .sd files in " + schemas);
        DocumentmanagerConfig docConfig = Deriver.getDocumentManagerConfig(sdFiles).build();
        Store store = Store.create(docConfig, cluster);
        ApplicationBuilder builder = Deriver.getSchemaBuilder(sdFiles);
        store.setSummaryFields(perType(builder, schema -> new HashSet<>(schema.getUniqueNamedSummaryFields().keySet())));
        store.setSummaryAttributes(perType(builder, Main::summaryAttributes));
        store.setFirstPhases(perType(builder, schema -> firstPhases(builder, schema)));
        List<String> types = new ArrayList<>();
        store.types().getDocumentTypes().keySet().forEach(n -> types.add(n.getName()));
        types.removeIf(t -> t.equals("document") || t.startsWith("vespa."));

        writePackage(app, schemas, sdFiles, port, cluster, types, global);
        try (Application application = Application.fromApplicationPackage(app, Networking.enable)) {
            waitReady(port);
            System.out.println("READY " + port + " " + (System.nanoTime() - start) / 1_000_000);
            System.out.flush();
            InputStream in = System.in;
            byte[] buf = new byte[256];
            while (in.read(buf) != -1) { /* serve until stdin closes */ }
        }
        System.exit(0);
    }

    /** What f makes of each schema the builder derived, by document type. */
    private static <T> Map<String, T> perType(ApplicationBuilder builder, Function<Schema, T> f) {
        Map<String, T> out = new HashMap<>();
        for (Schema schema : builder.getSchemaList()) {
            out.put(schema.getDocument() != null ? schema.getDocument().getName() : schema.getName(), f.apply(schema));
        }
        return out;
    }

    /**
     * The default summary's fields that the content node reads from a single-value attribute, with
     * the attribute's type: the config model gives a summary field whose source is an attribute the
     * attribute transform (config-model AdjustSummaryTransforms.makeAttributeTransformIfAppropriate,
     * ImplicitSummaries), and searchsummary's SingleAttrDFW then writes what the attribute holds,
     * not the stored document.
     */
    private static Map<String, String> summaryAttributes(Schema schema) {
        Map<String, String> fields = new HashMap<>();
        var summary = schema.getSummary("default");
        if (summary == null) return fields;
        for (var field : summary.getSummaryFields().values()) {
            if (field.getTransform() != SummaryTransform.ATTRIBUTE) continue;
            Attribute attribute = schema.getAttribute(field.getSingleSource());
            if (attribute == null || attribute.getCollectionType() != Attribute.CollectionType.SINGLE) continue;
            fields.put(field.getName(), attribute.getType().name());
        }
        return fields;
    }

    /** The first-phase expression of each rank profile of schema ("" where it has none). */
    private static Map<String, String> firstPhases(ApplicationBuilder builder, Schema schema) {
        Map<String, String> profiles = new HashMap<>();
        for (var profile : builder.getRankProfileRegistry().rankProfilesOf(schema)) {
            var first = profile.getFirstPhaseRanking();
            profiles.put(profile.name(), first == null ? "" : first.getRoot().toString());
        }
        return profiles;
    }

    private static void writePackage(Path app, Path schemas, List<String> sdFiles, int port, String cluster, List<String> types,
                                     Set<String> global) throws IOException {
        Files.createDirectories(app.resolve("schemas"));
        for (String sd : sdFiles) {
            Path from = Path.of(sd);
            Files.copy(from, app.resolve("schemas").resolve(from.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        StringBuilder docs = new StringBuilder();
        // A type a reference field points to must be global, or the config model refuses the
        // application (config-model GlobalDistributionValidator); the app's services.xml says which.
        for (String t : types) {
            docs.append("      <document type=\"").append(t).append("\" mode=\"index\"")
                .append(global.contains(t) ? " global=\"true\"" : "").append("/>\n");
        }
        String services = """
                <?xml version="1.0" encoding="utf-8"?>
                <!-- Written by the govespa JDisc harness (integration/jdisc): Vespa's container with
                     DocumentV1ApiHandler over the harness store, and a search chain answered by it. -->
                <services version="1.0">
                  <container id="default" version="1.0">
                    <http>
                      <server id="default" port="%d"/>
                    </http>
                    <accesslog type="disabled"/>
                    <handler id="com.yahoo.document.restapi.resource.HarnessDocumentV1ApiHandler">
                      <binding>http://*/document/v1/*</binding>
                      <binding>http://*/document/v1/*/</binding>
                    </handler>
                    <handler id="harness.ControlHandler">
                      <binding>http://*/harness/v1/*</binding>
                    </handler>
                    <search>
                      <chain id="default" inherits="vespa"/>
                      <provider id="%s" type="local" cluster="%s">
                        <searcher id="harness.StoreSearcher"/>
                      </provider>
                    </search>
                  </container>
                  <content id="%s" version="1.0">
                    <redundancy>1</redundancy>
                    <documents>
                %s    </documents>
                    <nodes>
                      <node hostalias="node1" distribution-key="0"/>
                    </nodes>
                  </content>
                </services>
                """.formatted(port, cluster, cluster, cluster, docs);
        Files.writeString(app.resolve("services.xml"), services);
    }

    private static void waitReady(int port) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/harness/v1/ready"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = client.send(probe, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
                last = new IllegalStateException("status " + r.statusCode() + ": " + r.body());
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the harness did not answer /harness/v1/ready on port " + port, last);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length)
                throw new IllegalArgumentException("usage: harness.Main --schemas DIR [--package DIR] [--port N] [--cluster NAME] [--global A,B]; bad argument '" + args[i] + "'");
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }

    private static String require(Map<String, String> opts, String name) {
        String v = opts.get(name);
        if (v == null) throw new IllegalArgumentException("--" + name + " is required");
        return v;
    }
}
