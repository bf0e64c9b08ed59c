"""schemathesis with all its checks against the JSON API, through the WSGI application, on the
demo catalog (the schema's examples, a real SKU, slug and path, reach real documents). Kept short:
a few generated cases per operation, plus the explicit examples."""

import json

import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from api.views import api

# The schema as the API serves it at /api/v1/openapi.json (built from the routes: no database).
schema = schemathesis.openapi.from_dict(api.get_openapi_schema(path_prefix="/api/v1"))
schema.app = get_wsgi_application()


@schema.parametrize()
@settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_operation_passes_every_check(case, chinook):
    case.call_and_validate()


def test_the_schema_tested_is_the_one_served(client):
    served = client.get("/api/v1/openapi.json").json()
    assert served == json.loads(json.dumps(api.get_openapi_schema(path_prefix="/api/v1"), default=str))
