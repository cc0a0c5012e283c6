package harness;

import com.yahoo.container.jdisc.HttpRequest;
import com.yahoo.container.jdisc.HttpResponse;
import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/**
 * The harness's control endpoint, outside Vespa's API:
 * <ul>
 *   <li>GET /harness/v1/ready: 200 once the container serves requests;</li>
 *   <li>POST /harness/v1/reset: forgets every document and fault;</li>
 *   <li>POST /harness/v1/faults?op=put|update|remove|get|visit|any&amp;kind=transient|overload|timeout|storage|error&amp;count=N[&amp;message=...]:
 *       the next N such operations fail that way (see {@link Faults});</li>
 *   <li>DELETE /harness/v1/faults: disarms every fault.</li>
 * </ul>
 */
public final class ControlHandler extends ThreadedHttpRequestHandler {

    public ControlHandler(Executor executor) {
        super(executor);
    }

    @Override
    public HttpResponse handle(HttpRequest request) {
        String path = request.getUri().getPath();
        String method = request.getMethod().name();
        Store store = Store.get();
        try {
            switch (path) {
                case "/harness/v1/ready":
                    return json(200, "{\"ready\":true,\"documents\":" + store.size() + "}");
                case "/harness/v1/reset":
                    if (!method.equals("POST")) return json(405, error("use POST"));
                    store.reset();
                    return json(200, "{\"reset\":true}");
                case "/harness/v1/faults":
                    if (method.equals("DELETE")) {
                        store.faults().clear();
                        return json(200, "{\"faults\":0}");
                    }
                    if (!method.equals("POST")) return json(405, error("use POST or DELETE"));
                    String count = request.getProperty("count");
                    store.faults().arm(orEmpty(request.getProperty("op")), orEmpty(request.getProperty("kind")),
                            count == null ? 1 : Integer.parseInt(count), request.getProperty("message"));
                    return json(200, "{\"armed\":true}");
                default:
                    return json(404, error("no such harness path '" + path + "'"));
            }
        } catch (IllegalArgumentException e) {
            return json(400, error(e.getMessage()));
        }
    }

    private static String orEmpty(String s) { return s == null ? "" : s; }

    private static String error(String message) {
        return "{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    private static HttpResponse json(int status, String body) {
        return new HttpResponse(status) {
            @Override public void render(OutputStream out) throws IOException {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
            @Override public String getContentType() { return "application/json"; }
        };
    }
}
